import styled from 'styled-components';
import type { DefaultTheme } from 'styled-components';

// priorityColor: 1 red, 2 orange, 3 grey (spec section 3).
export function priorityColor(theme: DefaultTheme, priority: number): string {
  if (priority === 1) return theme.colors.danger;
  if (priority === 2) return theme.colors.warning;
  return theme.colors.textSoft;
}

export const PriorityDot = styled.span<{ $priority: number }>`
  flex: none;
  display: inline-block;
  width: 10px;
  height: 10px;
  border-radius: 50%;
  background: ${({ theme, $priority }) => priorityColor(theme, $priority)};
`;

export const Body = styled.div`
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  line-height: 1.5;
`;

export const Meta = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  color: ${({ theme }) => theme.colors.textSoft};
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  margin-bottom: ${({ theme }) => theme.space.md}px;
`;

export const Row = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space.md}px;
  align-items: flex-end;
  flex-wrap: wrap;
`;

export const SwitchLabel = styled.label`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.sm}px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  color: ${({ theme }) => theme.colors.textMuted};
  padding-bottom: ${({ theme }) => theme.space.sm}px;
`;

// The announcements popover (AnnouncementsPopover.tsx): each item has a stripe in its
// priority's colour (the text keeps the body colour, for contrast).
export const PopoverItem = styled.div<{ $priority: number }>`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.xs}px;
  padding: ${({ theme }) => theme.space.sm}px ${({ theme }) => theme.space.md}px;
  border-left: 4px solid ${({ theme, $priority }) => priorityColor(theme, $priority)};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  a {
    color: ${({ theme }) => theme.colors.primary};
    font-size: ${({ theme }) => theme.fontSizes.sm}px;
  }
`;

export const PopoverTitle = styled.strong`
  color: ${({ theme }) => theme.colors.text};
`;

export const PopoverText = styled.p`
  margin: 0;
  padding: 0 ${({ theme }) => theme.space.xs}px;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
`;

export const PopoverImage = styled.img`
  max-width: 100%;
  max-height: 160px;
  object-fit: contain;
  border-radius: ${({ theme }) => theme.radii.sm}px;
`;

export const PopoverFooter = styled.button`
  display: block;
  width: 100%;
  border: 0;
  background: transparent;
  padding: ${({ theme }) => theme.space.sm}px;
  color: ${({ theme }) => theme.colors.primary};
  font: inherit;
  font-weight: 600;
  cursor: pointer;
`;

export const PopoverBadge = styled.span`
  position: absolute;
  top: 2px;
  right: 0;
  min-width: 18px;
  height: 18px;
  padding: 0 4px;
  border-radius: ${({ theme }) => theme.radii.round}px;
  font-size: ${({ theme }) => theme.fontSizes.xs - 1}px;
  line-height: 18px;
  font-weight: 700;
  background: ${({ theme }) => theme.colors.danger};
  color: ${({ theme }) => theme.colors.onPrimary};
`;
