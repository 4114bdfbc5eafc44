// The main layout of spec section 2: a collapsible drawer (temporary below 600 px,
// permanent otherwise; starts collapsed when the setting sideMenu is 'disabled') and
// the top bar.
import { useState, type ReactNode } from 'react';
import { useTheme } from 'styled-components';
import { useMediaQuery } from '../../app/hooks';
import { useResource } from '../../app/resources';
import { settingsApi } from '../../api/endpoints';
import { setTenantTimeZone, tenantTimeZone } from '../../app/format';
import { Drawer } from './Drawer';
import { TopBar } from './TopBar';
import { InvitationCenter } from '../invite/InvitationCenter';
import { Content, Frame, Main, Scrim } from './style';

export function MainLayout({ children }: { children: ReactNode }) {
  const theme = useTheme();
  const temporary = useMediaQuery(`(max-width: ${theme.breakpoints.sideMenu - 1}px)`);
  const settings = useResource('settings', settingsApi.list);
  const sideMenu = settings.data?.find((s) => s.key === 'sideMenu')?.value;
  // The tenant's zone, before the page renders: every date below is shown in it. A
  // changed zone remounts the page (keyed by zone) so nothing keeps the old times.
  const zone = settings.data?.find((s) => s.key === 'timeZone')?.value;
  if (zone) setTenantTimeZone(zone);
  const [open, setOpen] = useState<boolean | null>(null);
  const [mobileOpen, setMobileOpen] = useState(false);

  // The setting decides the state until the user toggles it. On a phone the drawer is a temporary overlay that opens only when asked.
  const expanded = temporary ? mobileOpen : (open ?? sideMenu !== 'disabled');
  const toggle = () => (temporary ? setMobileOpen(!mobileOpen) : setOpen(!expanded));

  return (
    <Frame>
      <Drawer
        expanded={expanded}
        temporary={temporary}
        onNavigate={() => setMobileOpen(false)}
        onToggle={toggle}
      />
      {temporary && expanded && <Scrim onClick={() => setMobileOpen(false)} />}
      <Main>
        <TopBar onMenu={toggle} />
        <Content key={tenantTimeZone}>{children}</Content>
      </Main>
      <InvitationCenter />
    </Frame>
  );
}
