// A file field drawn like the app's buttons, in the interface's language. The
// browser's own file input ("Choose File / No file chosen", in the browser's language
// and style) stays in the page for the keyboard, screen readers and the form, but is
// hidden visually; its label is the visible button.
import { useId, useState, type ChangeEvent } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';

const Hidden = styled.input`
  position: absolute;
  width: 1px;
  height: 1px;
  margin: -1px;
  padding: 0;
  overflow: hidden;
  clip: rect(0 0 0 0);
  white-space: nowrap;
  border: 0;
`;

const Pick = styled.label`
  display: inline-flex;
  align-items: center;
  min-height: 32px;
  padding: 0 ${({ theme }) => theme.space.md}px;
  border: 1px solid ${({ theme }) => theme.colors.borderStrong};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  background: ${({ theme }) => theme.colors.surface};
  color: ${({ theme }) => theme.colors.primary};
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  font-weight: 600;
  cursor: pointer;
  input:focus-visible + & {
    outline: 2px solid ${({ theme }) => theme.colors.primary};
    outline-offset: 1px;
  }
`;

const Chosen = styled.span`
  color: ${({ theme }) => theme.colors.textSoft};
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
  max-width: 220px;
`;

export interface FilePickerProps {
  // label names the field for assistive technology (the visible text is the button's).
  label: string;
  name?: string;
  accept?: string;
  onChange: (file: File | null) => void;
}

export function FilePicker({ label, name, accept, onChange }: FilePickerProps) {
  const { t } = useTranslation();
  const id = useId();
  const [chosen, setChosen] = useState('');
  const change = (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0] ?? null;
    setChosen(file?.name ?? '');
    onChange(file);
  };
  return (
    <>
      <Hidden id={id} type="file" accept={accept} name={name} aria-label={label} onChange={change} />
      <Pick htmlFor={id}>{t('common.file.choose')}</Pick>
      <Chosen aria-live="polite">{chosen || t('common.file.none')}</Chosen>
    </>
  );
}
