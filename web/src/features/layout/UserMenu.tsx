// The top bar's user menu: who is signed in (name and translated profile), "profile"
// (the user's own edit modal: name, e-mail, password; never their own profile, and
// queues only with user-modal:editQueues, as on the users page), languages, logout.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usePermissions, useSessionActor, useUser } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { http } from '../../api/client';
import { setLanguage } from '../../i18n';
import { languages } from '../../i18n/resources';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/primitives';
import { MenuItem, Popover } from '../../components/Popover';
import { UserModal } from '../users/UserModal';
import { profileLabel } from '../users/profiles';
import type { User } from '../../api/types';
import { MenuWho } from './style';

export function UserMenu() {
  const { t, i18n } = useTranslation();
  const session = useSessionActor();
  const user = useUser();
  const { can } = usePermissions();
  const [open, setOpen] = useState(false);
  const [profileOpen, setProfileOpen] = useState(false);
  const profile = profileLabel(t, user.profile);

  // The session shows the saved name and e-mail at once (the token stays valid).
  const onSaved = (saved: User) =>
    session.send({
      type: 'session.refreshed',
      auth: {
        token: http.token ?? '',
        user: { ...user, name: saved.name, email: saved.email, queues: saved.queues ?? user.queues, whatsappId: saved.whatsappId ?? undefined },
      },
    });

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
        <MenuWho data-testid="user-menu-who">
          <strong>{user.name}</strong>
          <span>{profile}</span>
        </MenuWho>
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
      {profileOpen && (
        <UserModal
          user={user}
          callerProfile={user.profile}
          canEditProfile={false}
          canEditQueues={can(perms.editUserQueues)}
          canEditEmail={can(perms.manageUsers)}
          self
          onClose={() => setProfileOpen(false)}
          onSaved={onSaved}
        />
      )}
    </>
  );
}
