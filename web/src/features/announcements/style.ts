import styled from 'styled-components';
import type { DefaultTheme } from 'styled-components';

// priorityColor: 1 red, 2 orange, 3 grey (spec section 3).
export function priorityColor(theme: DefaultTheme, priority: number): string {
  if (priority === 1) return theme.colors.danger;
  if (priority === 2) return theme.colors.warning;
  return theme.colors.textSoft;
}

export const PriorityDot = styled.span<{ $priority: number }>`
  flex: none;
  display: inline-block;
  width: 10px;
  height: 10px;
  border-radius: 50%;
  background: ${({ theme, $priority }) => priorityColor(theme, $priority)};
`;

export const Body = styled.div`
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  line-height: 1.5;
`;

export const Meta = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  color: ${({ theme }) => theme.colors.textSoft};
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  margin-bottom: ${({ theme }) => theme.space.md}px;
`;

export const Row = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space.md}px;
  align-items: flex-end;
  flex-wrap: wrap;
`;

export const SwitchLabel = styled.label`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  color: ${({ theme }) => theme.colors.textMuted};
  padding-bottom: ${({ theme }) => theme.space.sm}px;
`;
