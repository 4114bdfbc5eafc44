import styled from 'styled-components';

export const Section = styled.section`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
  max-width: 960px;
  h2 {
    margin: 0;
    font-size: ${({ theme }) => theme.fontSizes.lg}px;
  }
  h3 {
    margin: ${({ theme }) => theme.space.sm}px 0 0;
    font-size: ${({ theme }) => theme.fontSizes.md}px;
  }
  p {
    margin: 0;
  }
`;

export const TableWrap = styled.div`
  overflow-x: auto;
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
`;

export const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  th,
  td {
    text-align: left;
    padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.md}px`};
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
    white-space: nowrap;
  }
  th {
    font-weight: 600;
    color: ${({ theme }) => theme.colors.textMuted};
  }
  tr:last-child td,
  tr:last-child th {
    border-bottom: 0;
  }
`;

// A block of code or a secret: monospace, wrapped, selectable.
export const Code = styled.pre`
  margin: 0;
  padding: ${({ theme }) => theme.space.sm}px ${({ theme }) => theme.space.md}px;
  background: ${({ theme }) => theme.colors.background};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  color: ${({ theme }) => theme.colors.text};
  white-space: pre-wrap;
  word-break: break-all;
  user-select: all;
`;

export const Warning = styled.p`
  margin: 0;
  font-weight: 600;
  color: ${({ theme }) => theme.colors.text};
`;

export const Hint = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
`;
