// A checkbox list in a popover: tag, attendant and queue filters of the ticket manager.
import { useState } from 'react';
import styled from 'styled-components';
import { Popover } from './Popover';
import { Badge } from './primitives';

const Trigger = styled.button`
  display: inline-flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  min-height: 32px;
  padding: 0 ${({ theme }) => theme.space.sm}px;
  border: 1px solid ${({ theme }) => theme.colors.borderStrong};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  background: ${({ theme }) => theme.colors.surface};
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  cursor: pointer;
`;

const Option = styled.label`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => `${theme.space.xs}px ${theme.space.md}px`};
  cursor: pointer;
  &:hover {
    background: ${({ theme }) => theme.colors.surfaceAlt};
  }
`;

const Swatch = styled.span<{ $color: string }>`
  width: 10px;
  height: 10px;
  border-radius: 50%;
  background: ${({ $color }) => $color};
`;

export interface Choice {
  id: number;
  name: string;
  color?: string;
}

export function MultiSelect({
  label,
  choices,
  value,
  onChange,
}: {
  label: string;
  choices: Choice[];
  value: number[];
  onChange: (next: number[]) => void;
}) {
  const [open, setOpen] = useState(false);
  const toggle = (id: number) => onChange(value.includes(id) ? value.filter((v) => v !== id) : [...value, id]);
  return (
    <Popover
      open={open}
      onClose={() => setOpen(false)}
      label={label}
      anchor={
        <Trigger type="button" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          {label}
          {value.length > 0 && <Badge>{value.length}</Badge>}
        </Trigger>
      }
    >
      {choices.map((c) => (
        <Option key={c.id}>
          <input type="checkbox" checked={value.includes(c.id)} onChange={() => toggle(c.id)} />
          {c.color && <Swatch $color={c.color} />}
          {c.name}
        </Option>
      ))}
    </Popover>
  );
}
