import styled from 'styled-components';

export const Form = styled.form`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
`;

export const Tabs = styled.div`
  display: flex;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  margin-bottom: ${({ theme }) => theme.space.sm}px;
`;

export const Tab = styled.span<{ $active?: boolean }>`
  padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.md}px`};
  font: inherit;
  font-weight: 600;
  background: none;
  border: none;
  cursor: pointer;
  color: ${({ theme, $active = true }) => ($active ? theme.colors.primary : theme.colors.text)};
  border-bottom: 2px solid ${({ theme, $active = true }) => ($active ? theme.colors.primary : 'transparent')};
`;

export const PasswordBox = styled.div`
  position: relative;
  display: flex;
  align-items: center;
  input {
    padding-right: 44px;
  }
  button {
    position: absolute;
    right: 2px;
  }
`;

export const Fieldset = styled.fieldset`
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  padding: ${({ theme }) => `${theme.space.xs}px ${theme.space.md}px ${theme.space.sm}px`};
  margin: 0;
  max-height: 180px;
  overflow: auto;
  legend {
    font-size: ${({ theme }) => theme.fontSizes.sm}px;
    color: ${({ theme }) => theme.colors.textMuted};
    padding: 0 ${({ theme }) => theme.space.xs}px;
  }
`;

export const Check = styled.label`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => theme.space.xxs}px 0;
  cursor: pointer;
`;

export const Dot = styled.span<{ $color: string }>`
  width: 10px;
  height: 10px;
  border-radius: 50%;
  flex: none;
  background: ${({ $color }) => $color};
`;

export const Hint = styled.span`
  color: ${({ theme }) => theme.colors.textSoft};
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
`;
