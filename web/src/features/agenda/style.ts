// Styles of the agenda pages: the view switcher, the kanban board and its cards.
import styled, { css } from 'styled-components';
import type { TagTone } from './api';

export const Switcher = styled.div`
  display: inline-flex;
  gap: ${({ theme }) => theme.space.xs}px;
`;

export const Board = styled.div`
  flex: 1;
  min-height: 0;
  display: flex;
  gap: ${({ theme }) => theme.space.sm}px;
  overflow-x: auto;
  padding-bottom: ${({ theme }) => theme.space.sm}px;
`;

export const Column = styled.section<{ $over: boolean }>`
  flex: 0 0 260px;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.sm}px;
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme, $over }) => ($over ? theme.colors.primary : theme.colors.border)};
  border-radius: ${({ theme }) => theme.radii.md}px;
  padding: ${({ theme }) => theme.space.sm}px;
  overflow-y: auto;
`;

export const ColumnTitle = styled.h2`
  margin: 0;
  font-size: ${({ theme }) => theme.fontSizes.md}px;
  display: flex;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space.sm}px;
`;

const toneColor = {
  green: css`
    border-left-color: ${({ theme }) => theme.colors.success};
  `,
  yellow: css`
    border-left-color: ${({ theme }) => theme.colors.ageWarm};
  `,
  red: css`
    border-left-color: ${({ theme }) => theme.colors.danger};
  `,
  none: css`
    border-left-color: ${({ theme }) => theme.colors.border};
  `,
};

export const Card = styled.article<{ $tone: TagTone; $dragging: boolean; $reduced: boolean }>`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.xs}px;
  padding: ${({ theme, $reduced }) => ($reduced ? theme.space.xs : theme.space.sm)}px;
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-left-width: 6px;
  border-radius: ${({ theme }) => theme.radii.sm}px;
  background: ${({ theme }) => theme.colors.background};
  opacity: ${({ $dragging }) => ($dragging ? 0.6 : 1)};
  ${({ $tone }) => toneColor[$tone]}
`;

export const DragHandle = styled.div`
  cursor: grab;
  touch-action: none;
  border-radius: ${({ theme }) => theme.radii.sm}px;
  &:focus-visible {
    outline: 2px solid ${({ theme }) => theme.colors.primary};
  }
`;

export const CardActions = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space.xs}px;
`;

export const CardLine = styled.span`
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  overflow-wrap: anywhere;
`;

export const CalendarBox = styled.div`
  flex: 1;
  min-height: 0;
  overflow: auto;
  background: ${({ theme }) => theme.colors.surface};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md}px;
  padding: ${({ theme }) => theme.space.sm}px;
`;

export const InfoList = styled.dl`
  display: grid;
  grid-template-columns: max-content 1fr;
  gap: ${({ theme }) => theme.space.xs}px ${({ theme }) => theme.space.md}px;
  margin: 0;
  dt {
    font-weight: 600;
  }
  dd {
    margin: 0;
    overflow-wrap: anywhere;
  }
`;
