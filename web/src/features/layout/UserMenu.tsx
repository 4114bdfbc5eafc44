import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSessionActor, useUser } from '../../app/session';
import { setLanguage } from '../../i18n';
import { languages } from '../../i18n/resources';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/primitives';
import { MenuItem, Popover } from '../../components/Popover';
import { Dialog } from '../../components/Dialog';
import { ProfileList } from './style';

export function UserMenu() {
  const { t, i18n } = useTranslation();
  const session = useSessionActor();
  const user = useUser();
  const [open, setOpen] = useState(false);
  const [profileOpen, setProfileOpen] = useState(false);
  return (
    <>
      <Popover
        open={open}
        onClose={() => setOpen(false)}
        align="right"
        label={t('layout.userMenu.label')}
        anchor={
          <IconButton type="button" aria-label={t('layout.userMenu.label')} aria-expanded={open} onClick={() => setOpen((o) => !o)}>
            <Icon name="person" />
          </IconButton>
        }
      >
        <MenuItem
          type="button"
          onClick={() => {
            setOpen(false);
            setProfileOpen(true);
          }}
        >
          <Icon name="person" size={18} />
          {t('layout.userMenu.profile')}
        </MenuItem>
        {languages.map((lng) => (
          <MenuItem key={lng} type="button" aria-pressed={i18n.language === lng} onClick={() => setLanguage(lng)}>
            <Icon name="translate" size={18} />
            {t(`layout.languages.${lng}`)}
          </MenuItem>
        ))}
        <MenuItem type="button" onClick={() => session.send({ type: 'session.logout' })}>
          <Icon name="logout" size={18} />
          {t('layout.userMenu.logout')}
        </MenuItem>
      </Popover>
      <Dialog open={profileOpen} onClose={() => setProfileOpen(false)} title={t('layout.profile.title')}>
        <ProfileList>
          <dt>{t('layout.profile.name')}</dt>
          <dd>{user.name}</dd>
          <dt>{t('layout.profile.email')}</dt>
          <dd>{user.email}</dd>
          <dt>{t('layout.profile.profile')}</dt>
          <dd>{user.profile}</dd>
          <dt>{t('layout.profile.queues')}</dt>
          <dd>{user.queues.map((q) => q.name).join(', ') || t('layout.profile.noQueues')}</dd>
        </ProfileList>
      </Dialog>
    </>
  );
}
