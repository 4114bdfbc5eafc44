import styled from 'styled-components';

export const Filters = styled.form`
  display: flex;
  flex-wrap: wrap;
  align-items: flex-end;
  gap: ${({ theme }) => theme.space.md}px;
`;

export const Grid = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(180px, 1fr));
  gap: ${({ theme }) => theme.space.md}px;
`;

export const Card = styled.section`
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  padding: ${({ theme }) => theme.space.md}px;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.xs}px;
`;

export const CardTitle = styled.h2`
  margin: 0;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  font-weight: 600;
  color: ${({ theme }) => theme.colors.textMuted};
`;

export const Figure = styled.output`
  font-size: ${({ theme }) => theme.fontSizes.xxl}px;
  font-weight: 600;
  color: ${({ theme }) => theme.colors.text};
`;

export const Detail = styled.span`
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  color: ${({ theme }) => theme.colors.textMuted};
`;

export const Scroll = styled.div`
  flex: 1;
  min-height: 0;
  overflow: auto;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.md}px;
`;

export const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  th,
  td {
    text-align: left;
    padding: ${({ theme }) => theme.space.xs}px ${({ theme }) => theme.space.sm}px;
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  }
  td:last-child,
  th:last-child {
    text-align: right;
  }
`;

export const ChartBox = styled.div`
  width: 100%;
  height: 260px;
`;

export const Mood = styled.span<{ $level: 'low' | 'medium' | 'high' }>`
  display: inline-flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  color: ${({ theme, $level }) => ($level === 'high' ? theme.colors.success : $level === 'medium' ? theme.colors.textMuted : theme.colors.danger)};
`;
