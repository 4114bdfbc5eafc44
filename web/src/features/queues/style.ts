import styled from 'styled-components';

export const Pair = styled.div`
  display: grid;
  grid-template-columns: 1fr 1fr;
  gap: ${({ theme }) => theme.space.md}px;
`;

export const ColorRow = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  input[type='color'] {
    width: 44px;
    height: 40px;
    padding: 2px;
    border: 1px solid ${({ theme }) => theme.colors.borderStrong};
    border-radius: ${({ theme }) => theme.radii.sm}px;
    background: ${({ theme }) => theme.colors.surface};
    flex: none;
  }
`;

export const SwitchField = styled.label`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  color: ${({ theme }) => theme.colors.textMuted};
  cursor: pointer;
`;

export const QueueList = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  overflow: auto;
  height: 100%;
`;

export const QueueItem = styled.li`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.md}px;
  min-height: 64px;
  padding: 0 ${({ theme }) => theme.space.md}px;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

export const Stripe = styled.span<{ $color: string }>`
  width: 6px;
  align-self: stretch;
  margin: ${({ theme }) => theme.space.sm}px 0;
  border-radius: ${({ theme }) => theme.radii.sm}px;
  flex: none;
  background: ${({ $color }) => $color};
`;
