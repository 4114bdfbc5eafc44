import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { usePermissions, useUser } from '../../app/session';
import { actions } from '../../app/permissions';
import { useNow, useMediaQuery } from '../../app/hooks';
import { appVersion } from '../../app/version';
import { useOnline } from '../../app/realtime';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/primitives';
import { AnnouncementDialog } from '../announcements/AnnouncementDialog';
import { useNewestAnnouncement } from '../announcements/useNewestAnnouncement';
import { AnnouncementsPopover } from '../announcements/AnnouncementsPopover';
import type { Announcement } from '../../api/types';
import { NotificationBell } from './NotificationBell';
import { ChatPopover } from '../internalChat/ChatPopover';
import { UserMenu } from './UserMenu';
import { greetingFor } from './menu';
import { AnnouncementButton, AppBar, Greeting, OfflineDot, Spacer, VersionButton } from './style';

export function TopBar({ onMenu }: { onMenu: () => void }) {
  const { t } = useTranslation();
  const user = useUser();
  const { can } = usePermissions();
  const navigate = useNavigate();
  const now = useNow(60_000);
  const online = useOnline();
  const narrow = useMediaQuery('(max-width: 477px)');
  const greeting = greetingFor(new Date(now).getHours());
  // The newest active announcement replaces the greeting (spec section 2, top bar).
  const newest = useNewestAnnouncement();
  const [shown, setShown] = useState<Announcement | null>(null);
  return (
    <AppBar>
      <IconButton type="button" aria-label={t('layout.topBar.menu')} onClick={onMenu}>
        <Icon name="menu" />
      </IconButton>
      {newest ? (
        <AnnouncementButton
          type="button"
          $priority={newest.priority}
          title={t('announcements.popupHint')}
          onClick={() => setShown(newest)}
        >
          {t('announcements.newLabel', { title: newest.title })}
        </AnnouncementButton>
      ) : (
        <Greeting>{t(`layout.greeting.${greeting}`, { name: user.name })}</Greeting>
      )}
      <Spacer />
      {!online && <OfflineDot role="status" title={t('layout.topBar.offline')} aria-label={t('layout.topBar.offline')} />}
      {!narrow && (
        <VersionButton type="button" onClick={() => navigate('/upgradeinfo')} title={t('layout.topBar.versionHint')}>
          {t('layout.topBar.version', { version: appVersion })}
        </VersionButton>
      )}
      <AnnouncementsPopover />
      {can(actions.viewNotifications) && <NotificationBell />}
      {can(actions.useChat) && <ChatPopover />}
      <UserMenu />
      <AnnouncementDialog announcement={shown} onClose={() => setShown(null)} />
    </AppBar>
  );
}
