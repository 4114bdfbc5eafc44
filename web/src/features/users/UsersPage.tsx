// /users: searchable, virtualised user list (GET /users/, 40 a page) with add, edit and
// delete for users:manage holders, on users no more privileged than the caller (adding
// also needs the setting userCreation enabled, or settings:manage). The
// realtime "user" event keeps the list current in every browser.
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import type { RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { settingsApi, usersApi } from '../../api/endpoints';
import { usePermissions, useUser } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { usePagedCrudList } from '../../app/usePagedCrudList';
import { invalidateResource, useResource } from '../../app/resources';
import { Avatar } from '../../components/Avatar';
import { Badge, Muted } from '../../components/primitives';
import { ConfirmDelete, ListPage, RowActions } from '../../components/ListPage';
import { ContactRow as ItemRow, RowInfo } from '../../components/pageStyle';
import type { User, UserEvent } from '../../api/types';
import { UserModal } from './UserModal';
import { mayHandle, profileLabel } from './profiles';

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
      <RowActions
        editLabel={labels.edit}
        deleteLabel={labels.del}
        onEdit={mayEdit(u) ? () => onEdit(u) : undefined}
        onDelete={mayDelete(u) ? () => onDelete(u) : undefined}
      />
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
  const { items, loading, text, setText, editing, setEditing, deleting, setDeleting, onScroll, upsert, remove } = usePagedCrudList<User, UserEvent>({
    machine: usersListMachine,
    event: 'user',
    change: (e) => (e.action === 'delete' ? (e.userId ? { remove: e.userId } : null) : e.user ? { upsert: e.user } : null),
    matches,
  });
  useRealtimeEvent('user', () => invalidateResource('users:list'));
  useRealtimeEvent('settings', () => settings.reload());
  useResync(() => settings.reload());

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
        profile: (p) => profileLabel(t, p),
      },
    }),
    [items, manage, me.id, me.profile, t, setEditing, setDeleting],
  );
  const self = editing !== null && editing !== 'new' && editing.id === me.id;

  return (
    <ListPage
      title={t('users.title')}
      search={{ value: text, onChange: setText, label: t('users.search') }}
      add={{ label: t('users.actions.add'), onClick: () => setEditing('new'), allowed: mayAdd }}
      loading={loading}
      empty={items.length === 0}
      emptyText={t('users.empty')}
      rows={{ rowComponent: Row, rowCount: items.length, rowHeight: 64, rowProps, onScroll }}
    >
      {editing !== null && (
        <UserModal
          user={editing === 'new' ? null : editing}
          callerProfile={me.profile}
          canEditProfile={can(perms.editUserProfile) && !self}
          canEditQueues={can(perms.editUserQueues)}
          canManagePlaces={can(perms.managePlaces)}
          self={self}
          onClose={() => setEditing(null)}
          onSaved={upsert}
        />
      )}
      <ConfirmDelete
        item={deleting}
        title={t('users.delete.title')}
        body={t('users.delete.body', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        remove={(u) => usersApi.remove(u.id)}
        onRemoved={(u) => remove(u.id)}
      />
    </ListPage>
  );
}
