import styled from 'styled-components';
import { readableOn } from '../../theme/contrast';

export const Swatches = styled.div`
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(28px, 1fr));
  gap: ${({ theme }) => theme.space.xs}px;
`;

export const Swatch = styled.button<{ $color: string; $selected: boolean }>`
  width: 28px;
  height: 28px;
  border-radius: 50%;
  cursor: pointer;
  background: ${({ $color }) => $color};
  border: 2px solid ${({ theme, $selected }) => ($selected ? theme.colors.text : 'transparent')};
  box-shadow: inset 0 0 0 2px ${({ theme, $selected }) => ($selected ? theme.colors.surface : 'transparent')};
`;

export const AutoSwatch = styled.button<{ $selected: boolean }>`
  height: 28px;
  padding: 0 ${({ theme }) => theme.space.sm}px;
  border-radius: ${({ theme }) => theme.radii.round}px;
  cursor: pointer;
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  background: ${({ theme }) => theme.colors.surfaceAlt};
  color: ${({ theme }) => theme.colors.textMuted};
  border: 2px solid ${({ theme, $selected }) => ($selected ? theme.colors.text : 'transparent')};
  justify-self: start;
`;

export const TagChip = styled.span<{ $color: string }>`
  display: inline-flex;
  align-items: center;
  max-width: 100%;
  padding: 2px ${({ theme }) => theme.space.sm}px;
  border-radius: ${({ theme }) => theme.radii.round}px;
  font-weight: 600;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  /* The tag's own colour: black or white text, whichever reads (WCAG AA). */
  color: ${({ $color }) => readableOn($color)};
  background: ${({ $color }) => $color};
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
`;
