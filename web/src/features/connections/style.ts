import styled, { css } from 'styled-components';

export const Grid = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(280px, 1fr));
  gap: ${({ theme }) => theme.space.md}px;
`;

export const Card = styled.li`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => theme.space.md}px;
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
`;

export const CardHead = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  strong {
    flex: 1;
    min-width: 0;
    overflow: hidden;
    text-overflow: ellipsis;
    white-space: nowrap;
  }
`;

const roleTone = {
  default: css`
    background: ${({ theme }) => theme.colors.primarySoft};
    color: ${({ theme }) => theme.colors.primaryDark};
  `,
  outbound: css`
    background: ${({ theme }) => theme.colors.surfaceAlt};
    color: ${({ theme }) => theme.colors.warning};
  `,
  none: css`
    background: ${({ theme }) => theme.colors.surfaceAlt};
    color: ${({ theme }) => theme.colors.textMuted};
  `,
};

export const RoleLabel = styled.span<{ $role: keyof typeof roleTone }>`
  align-self: flex-start;
  padding: 2px 8px;
  border-radius: 10px;
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  font-weight: 600;
  ${({ $role }) => roleTone[$role]}
`;

export const StatusMark = styled.span<{ $tone: 'ok' | 'warn' | 'bad' | 'busy' }>`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  flex: none;
  width: 28px;
  height: 28px;
  border-radius: 50%;
  color: ${({ theme, $tone }) =>
    $tone === 'ok' ? theme.colors.success : $tone === 'bad' ? theme.colors.danger : $tone === 'warn' ? theme.colors.warning : theme.colors.info};
`;

export const Meta = styled.div`
  display: flex;
  flex-direction: column;
  gap: 2px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  color: ${({ theme }) => theme.colors.textMuted};
`;

export const Actions = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space.xs}px;
  margin-top: auto;
`;

export const Form = styled.form`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
`;

export const Pair = styled.div`
  display: grid;
  grid-template-columns: 1fr 1fr;
  gap: ${({ theme }) => theme.space.md}px;
  align-items: end;
`;

export const SwitchField = styled.label`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  cursor: pointer;
`;

export const ImageRow = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  img {
    width: 48px;
    height: 48px;
    object-fit: cover;
    border-radius: ${({ theme }) => theme.radii.sm}px;
  }
`;

export const QrBox = styled.div`
  display: flex;
  align-items: center;
  justify-content: center;
  min-width: 256px;
  min-height: 256px;
`;
