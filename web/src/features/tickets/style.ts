import styled, { css } from 'styled-components';
import type { AgeLevel } from '../../app/format';
import type { KnownChannel } from './ChannelMark';
import { readableOn } from '../../theme/contrast';

export const PageSplit = styled.div`
  flex: 1;
  min-height: 0;
  display: flex;
`;

export const ListPane = styled.section<{ $full: boolean }>`
  flex: none;
  width: ${({ theme, $full }) => ($full ? '100%' : `${theme.layout.ticketListWidth}px`)};
  min-width: 0;
  display: flex;
  flex-direction: column;
  border-right: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surface};
`;

export const ChatPane = styled.section`
  flex: 1;
  min-width: 0;
  display: flex;
  flex-direction: column;
`;

export const Welcome = styled.div`
  flex: 1;
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  gap: ${({ theme }) => theme.space.sm}px;
  color: ${({ theme }) => theme.colors.textSoft};
  text-align: center;
  padding: ${({ theme }) => theme.space.xl}px;
`;

export const ManagerShell = styled.div`
  flex: 1;
  min-height: 0;
  display: flex;
  flex-direction: column;
`;

export const Tabs = styled.div`
  display: flex;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

const tabCss = css<{ $active: boolean }>`
  flex: 1;
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: ${({ theme }) => theme.space.xs}px;
  border: 0;
  border-bottom: 2px solid ${({ theme, $active }) => ($active ? theme.colors.primary : 'transparent')};
  background: transparent;
  color: ${({ theme, $active }) => ($active ? theme.colors.primary : theme.colors.textMuted)};
  font-weight: 600;
  cursor: pointer;
`;

export const Tab = styled.button<{ $active: boolean }>`
  ${tabCss}
  min-height: 44px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  text-transform: uppercase;
`;

export const SubTabs = styled.div`
  display: flex;
  background: ${({ theme }) => theme.colors.surfaceAlt};
`;

export const SubTab = styled.button<{ $active: boolean }>`
  ${tabCss}
  min-height: 38px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
`;

export const FilterBar = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  padding: ${({ theme }) => theme.space.sm}px;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

export const ToggleLabel = styled.label`
  display: inline-flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  cursor: pointer;
`;

export const SearchBox = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space.xs}px;
  padding: ${({ theme }) => theme.space.sm}px;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

export const ListFrame = styled.div`
  flex: 1;
  min-height: 0;
  position: relative;
`;

export const LoaderRow = styled.div`
  display: flex;
  align-items: center;
  justify-content: center;
  padding: ${({ theme }) => theme.space.lg}px;
`;

export const EmptyState = styled.div`
  display: flex;
  flex-direction: column;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  padding: ${({ theme }) => theme.space.xl}px;
  color: ${({ theme }) => theme.colors.textSoft};
  text-align: center;
`;

// Positioned by react-window (absolute, translateY, height); the row fills it. Layout,
// paint and style containment: a row whose ticket changed is laid out and painted
// alone, and rows that only move (a ticket jumping to the top) need no layout at all.
export const RowSlot = styled.div`
  display: flex;
  flex-direction: column;
  contain: content;
`;

export const RowShell = styled.div<{ $selected: boolean; $clickable: boolean }>`
  flex: 1;
  min-height: 0;
  display: flex;
  align-items: flex-start;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.md}px ${theme.space.sm}px 0`};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme, $selected }) => ($selected ? theme.colors.primarySoft : theme.colors.surface)};
  cursor: ${({ $clickable }) => ($clickable ? 'pointer' : 'default')};
  overflow: hidden;
  &:hover {
    background: ${({ theme, $selected }) => ($selected ? theme.colors.primarySoft : theme.colors.surfaceAlt)};
  }
`;

export const QueueStripe = styled.span<{ $color?: string }>`
  flex: none;
  align-self: stretch;
  width: 6px;
  margin: -${({ theme }) => theme.space.sm}px 0;
  background: ${({ theme, $color }) => $color || theme.colors.noQueue};
`;

export const RowBody = styled.div`
  flex: 1;
  min-width: 0;
  display: flex;
  flex-direction: column;
  gap: 3px;
`;

export const RowLine = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  min-width: 0;
  min-height: 20px;
`;

export const RowName = styled.span`
  flex: 1;
  min-width: 0;
  font-weight: 600;
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
`;

export const RowTime = styled.span`
  flex: none;
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  color: ${({ theme }) => theme.colors.textSoft};
`;

export const RowPreview = styled.span`
  flex: 1;
  min-width: 0;
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
`;

export const UserTag = styled.span`
  padding: 0 6px;
  border-radius: ${({ theme }) => theme.radii.sm}px;
  background: ${({ theme }) => theme.colors.surfaceAlt};
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  white-space: nowrap;
  max-width: 120px;
  overflow: hidden;
  text-overflow: ellipsis;
`;

export const RowActions = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space.xs}px;
  flex-wrap: nowrap;
`;

const channelColor = {
  whatsapp: 'channelWhatsapp',
  waba: 'channelWaba',
  facebook: 'channelFacebook',
  instagram: 'channelInstagram',
  telegram: 'channelTelegram',
  socket: 'channelSocket',
} as const;

export const ChannelDot = styled.span<{ $channel: KnownChannel; $size: number }>`
  flex: none;
  min-width: ${({ $size }) => $size}px;
  height: ${({ $size }) => $size}px;
  padding: 0 ${({ $size }) => ($size > 24 ? 4 : 3)}px;
  border-radius: ${({ theme }) => theme.radii.round}px;
  display: inline-flex;
  align-items: center;
  justify-content: center;
  font-size: ${({ $size }) => ($size > 24 ? 11 : 10)}px;
  font-weight: 700;
  /* Brand colours (WhatsApp's green is 2:1 with white): black or white, whichever reads. */
  color: ${({ theme, $channel }) => readableOn(theme.colors[channelColor[$channel]])};
  background: ${({ theme, $channel }) => theme.colors[channelColor[$channel]]};
`;

const ageColor = { fresh: 'ageFresh', warm: 'ageWarm', hot: 'ageHot', late: 'ageLate' } as const;

export const AgePill = styled.span<{ $level: AgeLevel }>`
  flex: none;
  padding: 0 6px;
  height: 18px;
  line-height: 18px;
  border-radius: ${({ theme }) => theme.radii.round}px;
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  font-weight: 600;
  /* White on green and red, black on yellow and orange (white would be 1.9:1 there). */
  color: ${({ theme, $level }) => readableOn(theme.colors[ageColor[$level]])};
  background: ${({ theme, $level }) => theme.colors[ageColor[$level]]};
`;
