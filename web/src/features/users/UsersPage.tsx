// /users: searchable, virtualised user list (GET /users/, 40 a page) with add, edit and
// delete for users:manage holders, on users no more privileged than the caller (adding
// also needs the setting userCreation enabled, or settings:manage). The
// realtime "user" event keeps the list current in every browser.
import { useEffect, useMemo, useState, type UIEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { List, type RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { settingsApi, usersApi } from '../../api/endpoints';
import { useDebounced } from '../../app/hooks';
import { usePermissions, useUser } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { invalidateResource, useResource } from '../../app/resources';
import { toastError } from '../../app/errors';
import { Avatar } from '../../components/Avatar';
import { Icon } from '../../components/Icon';
import { Badge, Button, IconButton, Input, Muted } from '../../components/primitives';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Spinner } from '../../components/Splash';
import type { User, UserEvent } from '../../api/types';
import { ContactRow as ItemRow, Header, ListArea, Page, RowInfo, Title } from '../contacts/style';
import { UserModal } from './UserModal';
import { mayHandle, profileRank } from './profiles';
import { nearBottom } from '../../app/scroll';

export const usersListMachine = createPagedListMachine<User>().provide({
  actors: {
    fetchPage: fromPromise(async ({ input }) => {
      const r = await usersApi.search(input.searchParam, input.pageNumber);
      return { items: r.users ?? [], hasMore: !!r.hasMore };
    }),
  },
});

// matches: would the server's search (name or e-mail, case ignored) list this user?
function matches(u: User, search: string): boolean {
  const s = search.toLowerCase();
  return !s || u.name.toLowerCase().includes(s) || u.email.toLowerCase().includes(s);
}

interface RowData {
  items: User[];
  mayEdit: (u: User) => boolean;
  mayDelete: (u: User) => boolean;
  onEdit: (u: User) => void;
  onDelete: (u: User) => void;
  labels: { edit: string; del: string; profile: (p: string) => string };
}

function Row({ index, style, ariaAttributes, items, mayEdit, mayDelete, onEdit, onDelete, labels }: RowComponentProps<RowData>) {
  const u = items[index];
  if (!u) return null;
  return (
    <ItemRow style={style} {...ariaAttributes} data-testid={`user-${u.id}`}>
      <Avatar name={u.name} size={40} />
      <RowInfo>
        <strong>{u.name}</strong>
        <Muted>{u.email}</Muted>
      </RowInfo>
      <Badge $tone="muted">{labels.profile(u.profile)}</Badge>
      {mayEdit(u) && (
        <IconButton type="button" aria-label={labels.edit} title={labels.edit} onClick={() => onEdit(u)}>
          <Icon name="edit" />
        </IconButton>
      )}
      {mayDelete(u) && (
        <IconButton type="button" aria-label={labels.del} title={labels.del} onClick={() => onDelete(u)}>
          <Icon name="delete" />
        </IconButton>
      )}
    </ItemRow>
  );
}

export default function UsersPage() {
  const { t } = useTranslation();
  const me = useUser();
  const { can } = usePermissions();
  const manage = can(perms.manageUsers);
  // With the setting userCreation disabled only settings:manage holders may still add
  // users (the server answers the others ERR_USER_CREATION_DISABLED).
  const settings = useResource('settings', settingsApi.list);
  const creationOff = settings.data?.find((s) => s.key === 'userCreation')?.value === 'disabled';
  const mayAdd = manage && (!creationOff || can(perms.manageSettings));
  const list = useActorRef(usersListMachine, { input: {} });
  const items = useSelector(list, (s) => s.context.items);
  const hasMore = useSelector(list, (s) => s.context.hasMore);
  const loading = useSelector(list, (s) => s.hasTag('loading'));
  const loadingMore = useSelector(list, (s) => s.hasTag('loadingMore'));
  const [text, setText] = useState('');
  const search = useDebounced(text.trim(), 500);
  const [editing, setEditing] = useState<User | 'new' | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);

  useEffect(() => {
    if (list.getSnapshot().context.searchParam !== search) list.send({ type: 'list.search', searchParam: search });
  }, [list, search]);

  useRealtimeEvent<UserEvent>('user', (e) => {
    invalidateResource('users:list');
    if (e.action === 'delete') {
      if (e.userId) list.send({ type: 'list.remove', id: e.userId });
    } else if (e.user) {
      const known = list.getSnapshot().context.items.some((x) => x.id === e.user!.id);
      if (known || matches(e.user, list.getSnapshot().context.searchParam)) list.send({ type: 'list.upsert', item: e.user });
    }
  });
  useRealtimeEvent('settings', () => settings.reload());
  useResync(() => {
    list.send({ type: 'list.refresh' });
    settings.reload();
  });

  const rowProps = useMemo<RowData>(
    () => ({
      items,
      // Oneself: name and password only, through the same form.
      mayEdit: (u) => u.id === me.id || (manage && mayHandle(me.profile, u.profile)),
      mayDelete: (u) => manage && u.id !== me.id && mayHandle(me.profile, u.profile),
      onEdit: (u) => setEditing(u),
      onDelete: (u) => setDeleting(u),
      labels: {
        edit: t('users.actions.edit'),
        del: t('users.actions.delete'),
        profile: (p) => (profileRank(p) >= 0 ? t(`users.profiles.${p}` as 'users.profiles.user') : p),
      },
    }),
    [items, manage, me.id, me.profile, t],
  );
  const onScroll = (e: UIEvent<HTMLDivElement>) => {
    const el = e.currentTarget;
    if (hasMore && !loadingMore && nearBottom(el)) list.send({ type: 'list.nextPage' });
  };
  const self = editing !== null && editing !== 'new' && editing.id === me.id;

  return (
    <Page>
      <Header>
        <Title>{t('users.title')}</Title>
        <Input
          type="search"
          value={text}
          aria-label={t('users.search')}
          placeholder={t('users.search')}
          onChange={(e) => setText(e.target.value)}
          style={{ maxWidth: 280 }}
        />
        {mayAdd && (
          <Button type="button" onClick={() => setEditing('new')}>
            <Icon name="add" size={18} />
            {t('users.actions.add')}
          </Button>
        )}
      </Header>
      <ListArea>
        {loading && items.length === 0 ? (
          <Spinner />
        ) : items.length === 0 ? (
          <Muted>{t('users.empty')}</Muted>
        ) : (
          <List
            aria-label={t('users.title')}
            rowComponent={Row}
            rowCount={items.length}
            rowHeight={64}
            rowProps={rowProps}
            onScroll={onScroll}
            style={{ height: '100%' }}
          />
        )}
      </ListArea>
      {editing !== null && (
        <UserModal
          user={editing === 'new' ? null : editing}
          callerProfile={me.profile}
          canEditProfile={can(perms.editUserProfile) && !self}
          canEditQueues={can(perms.editUserQueues)}
          onClose={() => setEditing(null)}
          onSaved={(u) => list.send({ type: 'list.upsert', item: u })}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('users.delete.title')}
        confirmLabel={t('common.actions.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          const u = deleting;
          setDeleting(null);
          if (u)
            usersApi.remove(u.id).then(
              () => list.send({ type: 'list.remove', id: u.id }),
              toastError,
            );
        }}
      >
        {t('users.delete.body', { name: deleting?.name ?? '' })}
      </ConfirmDialog>
    </Page>
  );
}
