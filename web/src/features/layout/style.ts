import styled from 'styled-components';
import { priorityColor } from '../announcements/style';

export const Frame = styled.div`
  display: flex;
  height: 100%;
  overflow: hidden;
`;

export const Main = styled.div`
  flex: 1;
  min-width: 0;
  display: flex;
  flex-direction: column;
`;

export const Content = styled.main`
  flex: 1;
  min-height: 0;
  overflow: hidden;
  display: flex;
  flex-direction: column;
`;

export const DrawerPanel = styled.aside<{ $expanded: boolean; $temporary: boolean }>`
  flex: none;
  width: ${({ theme, $expanded }) => ($expanded ? theme.layout.drawerWidth : theme.layout.drawerCollapsedWidth)}px;
  background: ${({ theme }) => theme.colors.surface};
  border-right: 1px solid ${({ theme }) => theme.colors.border};
  overflow-y: auto;
  overflow-x: hidden;
  transition: width 0.15s;
  ${({ $temporary, theme }) =>
    $temporary
      ? `position: fixed; top: 0; bottom: 0; left: 0; z-index: ${theme.zIndex.drawer}; box-shadow: 0 0 24px ${theme.colors.shadow};`
      : ''}
`;

export const Scrim = styled.div`
  position: fixed;
  inset: 0;
  background: ${({ theme }) => theme.colors.overlay};
  z-index: ${({ theme }) => theme.zIndex.drawer - 1};
`;

export const DrawerHead = styled.div`
  height: ${({ theme }) => theme.layout.appBarHeight}px;
  display: flex;
  align-items: center;
  justify-content: flex-end;
  gap: ${({ theme }) => theme.space.sm}px;
  padding: 0 ${({ theme }) => theme.space.sm + 6}px;
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
`;

export const Brand = styled.span`
  flex: 1;
  padding-left: ${({ theme }) => theme.space.sm}px;
  font-size: ${({ theme }) => theme.fontSizes.xl}px;
  font-weight: 700;
  color: ${({ theme }) => theme.colors.primary};
`;

export const SectionTitle = styled.div`
  padding: ${({ theme }) => `${theme.space.md}px ${theme.space.lg}px ${theme.space.xs}px`};
  font-size: ${({ theme }) => theme.fontSizes.xs}px;
  text-transform: uppercase;
  letter-spacing: 0.06em;
  color: ${({ theme }) => theme.colors.textSoft};
`;

export const NavItem = styled.a`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.md}px;
  padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.lg + 4}px`};
  color: ${({ theme }) => theme.colors.textMuted};
  text-decoration: none;
  white-space: nowrap;
  &:hover {
    background: ${({ theme }) => theme.colors.surfaceAlt};
  }
  &.active {
    color: ${({ theme }) => theme.colors.primary};
    background: ${({ theme }) => theme.colors.primarySoft};
  }
`;

export const NavLabel = styled.span`
  overflow: hidden;
  text-overflow: ellipsis;
`;

export const AppBar = styled.header`
  flex: none;
  height: ${({ theme }) => theme.layout.appBarHeight}px;
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space.xs}px;
  padding: 0 ${({ theme }) => theme.space.sm}px;
  background: ${({ theme }) => theme.colors.primary};
  color: ${({ theme }) => theme.colors.onPrimary};
  z-index: ${({ theme }) => theme.zIndex.appBar};
  button {
    color: inherit;
  }
  button:hover:not(:disabled) {
    background: ${({ theme }) => theme.colors.primaryDark};
  }
`;

export const Greeting = styled.span`
  font-weight: 600;
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
  min-width: 0;
`;

// The top bar's 'Novo Informativo: <title>' in place of the greeting; the colour
// follows the announcement's priority (priorityColor: 1 red, 2 orange, 3 grey).
export const AnnouncementButton = styled.button<{ $priority: number }>`
  border: 0;
  background: transparent;
  padding: 0;
  font: inherit;
  font-weight: 600;
  cursor: pointer;
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
  min-width: 0;
  text-align: left;
  color: ${({ theme, $priority }) => priorityColor(theme, $priority)};
`;

export const Spacer = styled.span`
  flex: 1;
`;

export const VersionButton = styled.button`
  border: 0;
  background: transparent;
  font-size: ${({ theme }) => theme.fontSizes.sm}px;
  cursor: pointer;
  padding: ${({ theme }) => `${theme.space.xs}px ${theme.space.sm}px`};
  border-radius: ${({ theme }) => theme.radii.sm}px;
`;

export const OfflineDot = styled.span`
  width: 10px;
  height: 10px;
  border-radius: 50%;
  background: ${({ theme }) => theme.colors.warning};
`;

export const BellBadge = styled.span`
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

export const NotificationText = styled.span`
  display: flex;
  flex-direction: column;
  min-width: 0;
  flex: 1;
  padding: ${({ theme }) => theme.space.xs}px 0;
  span {
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
`;

export const MenuWho = styled.div`
  display: flex;
  flex-direction: column;
  gap: 2px;
  padding: ${({ theme }) => `${theme.space.sm}px ${theme.space.md}px`};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  max-width: 260px;
  strong {
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  span {
    color: ${({ theme }) => theme.colors.textSoft};
    font-size: ${({ theme }) => theme.fontSizes.sm}px;
  }
`;
