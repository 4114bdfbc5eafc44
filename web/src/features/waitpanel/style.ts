// The wait panel: a page in the main layout, or the whole screen in wall mode
// ($wall: larger type, no drawer). Wall mode scales every size by one factor.
import styled from 'styled-components';

export const Panel = styled.div<{ $wall: boolean }>`
  flex: 1;
  min-height: 0;
  overflow: auto;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.lg}px;
  padding: ${({ theme, $wall }) => ($wall ? theme.space.xxl : theme.space.lg)}px;
  background: ${({ theme }) => theme.colors.background};
  font-size: ${({ theme, $wall }) => ($wall ? theme.fontSizes.xl : theme.fontSizes.md)}px;
  ${({ $wall }) => ($wall ? 'position: fixed; inset: 0;' : '')}
  z-index: ${({ theme, $wall }) => ($wall ? theme.zIndex.modal : theme.zIndex.base)};
`;

export const PanelHeader = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${({ theme }) => theme.space.md}px;
  h1 {
    flex: 1;
    margin: 0;
    font-size: 1.8em;
  }
`;

export const Totals = styled.dl`
  display: flex;
  gap: ${({ theme }) => theme.space.xl}px;
  margin: 0;
  div {
    display: flex;
    flex-direction: column;
  }
  dt {
    color: ${({ theme }) => theme.colors.textMuted};
    font-size: 0.85em;
  }
  dd {
    margin: 0;
    font-size: 2em;
    font-weight: 700;
  }
`;

export const QueueGrid = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(16em, 1fr));
  gap: ${({ theme }) => theme.space.md}px;
`;

export const QueueCard = styled.li<{ $color: string }>`
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-top: 6px solid ${({ $color }) => $color};
  border-radius: ${({ theme }) => theme.radii.md}px;
  padding: ${({ theme }) => theme.space.md}px;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.xs}px;
  h2 {
    margin: 0;
    font-size: 1.15em;
  }
`;

export const Big = styled.span`
  font-size: 2.4em;
  font-weight: 700;
  line-height: 1.1;
`;

export const Soft = styled.span`
  color: ${({ theme }) => theme.colors.textMuted};
`;

export const Section = styled.section`
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  padding: ${({ theme }) => theme.space.md}px;
  h2 {
    margin: 0 0 ${({ theme }) => theme.space.sm}px;
    font-size: 1.2em;
  }
`;

export const Table = styled.table`
  width: 100%;
  border-collapse: collapse;
  th,
  td {
    text-align: left;
    padding: ${({ theme }) => theme.space.xs}px ${({ theme }) => theme.space.sm}px;
    border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  }
  th {
    color: ${({ theme }) => theme.colors.textMuted};
    font-weight: 600;
  }
`;

export const Presence = styled.span<{ $online: boolean }>`
  display: inline-flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  &::before {
    content: '';
    width: 0.7em;
    height: 0.7em;
    border-radius: 50%;
    background: ${({ theme, $online }) => ($online ? theme.colors.success : theme.colors.borderStrong)};
  }
`;

export const Clock = styled.span`
  font-variant-numeric: tabular-nums;
  font-weight: 600;
`;
