// FormDialog: the form modals' shell (announcements, quick answers, tags, queues,
// connections): a dialog around a form that submits through the dialog's save button,
// disabled while busy, beside cancel. FormErrorText is a field's error message.
import type { FormEvent, ReactNode } from 'react';
import styled from 'styled-components';
import { useTranslation } from 'react-i18next';
import type { ParseKeys } from 'i18next';
import { Dialog } from './Dialog';
import { Button, FieldError } from './primitives';

const Form = styled.form`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
`;

export function FormDialog({
  id,
  title,
  width,
  busy,
  onClose,
  onSubmit,
  children,
}: {
  /** The form's id, which the save button submits. */
  id: string;
  title: ReactNode;
  width?: number;
  busy: boolean;
  onClose: () => void;
  onSubmit: (e: FormEvent) => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Dialog
      open
      onClose={onClose}
      width={width}
      title={title}
      actions={
        <>
          <Button type="button" $variant="ghost" onClick={onClose}>
            {t('common.actions.cancel')}
          </Button>
          <Button type="submit" form={id} disabled={busy}>
            {t('common.actions.save')}
          </Button>
        </>
      }
    >
      <Form id={id} onSubmit={onSubmit} noValidate>
        {children}
      </Form>
    </Dialog>
  );
}

// FormErrorText: the message of a field's error key, as an alert; nothing without one.
export function FormErrorText({ error }: { error?: ParseKeys }) {
  const { t } = useTranslation();
  return error ? <FieldError role="alert">{t(error)}</FieldError> : null;
}
