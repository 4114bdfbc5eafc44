import styled from 'styled-components';

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
  td.num,
  th.num {
    text-align: right;
    font-variant-numeric: tabular-nums;
  }
  tr:last-child td {
    border-bottom: 0;
  }
`;

export const Section = styled.section`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
  max-width: 960px;
  h2 {
    margin: 0;
    font-size: ${({ theme }) => theme.fontSizes.lg}px;
  }
`;

export const Hint = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
`;

export const DocsLink = styled.a`
  color: ${({ theme }) => theme.colors.primaryDark};
  font-weight: 600;
`;
