import styled from 'styled-components';

export const EditorGrid = styled.div`
  flex: 1;
  min-height: 420px;
  display: grid;
  grid-template-columns: 170px 1fr 280px;
  gap: ${({ theme }) => theme.space.sm}px;
  @media (max-width: ${({ theme }) => theme.breakpoints.split}px) {
    grid-template-columns: 1fr;
  }
`;

export const Panel = styled.section`
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  padding: ${({ theme }) => theme.space.sm}px;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
  overflow: auto;
  h2 {
    margin: 0;
    font-size: ${({ theme }) => theme.fontSizes.md}px;
  }
`;

export const Canvas = styled.div`
  min-height: 420px;
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  background: ${({ theme }) => theme.colors.background};
`;

export const PaletteItem = styled.div`
  padding: ${({ theme }) => theme.space.xs}px ${({ theme }) => theme.space.sm}px;
  border: 1px solid ${({ theme }) => theme.colors.borderStrong};
  border-radius: ${({ theme }) => theme.radii.sm}px;
  background: ${({ theme }) => theme.colors.surfaceAlt};
  color: ${({ theme }) => theme.colors.text};
  cursor: grab;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
`;

export const NodeBox = styled.div<{ $error: boolean; $selected: boolean }>`
  min-width: 170px;
  max-width: 230px;
  background: ${({ theme }) => theme.colors.surface};
  color: ${({ theme }) => theme.colors.text};
  border: 2px solid
    ${({ theme, $error, $selected }) => ($error ? theme.colors.danger : $selected ? theme.colors.primary : theme.colors.borderStrong)};
  border-radius: ${({ theme }) => theme.radii.md}px;
  padding: ${({ theme }) => theme.space.xs}px ${({ theme }) => theme.space.sm}px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  strong {
    display: block;
  }
`;

export const NodeSummary = styled.span`
  display: block;
  color: ${({ theme }) => theme.colors.textMuted};
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
`;

export const NodeError = styled.span`
  display: block;
  color: ${({ theme }) => theme.colors.danger};
  font-weight: 600;
`;

export const Exits = styled.div`
  display: flex;
  flex-direction: column;
  gap: 4px;
  margin-top: ${({ theme }) => theme.space.xs}px;
`;

export const Exit = styled.div`
  position: relative;
  text-align: right;
  padding-right: 10px;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
`;

export const ErrorList = styled.ul`
  margin: 0;
  padding-left: ${({ theme }) => theme.space.md}px;
  color: ${({ theme }) => theme.colors.danger};
`;

export const FlowRow = styled.li`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => theme.space.sm}px ${({ theme }) => theme.space.md}px;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

export const FlowList = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
`;
