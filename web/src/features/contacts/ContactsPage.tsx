// /contacts: searchable, virtualised contact list with create, edit, delete (permission
// contacts-page:deleteContact) and "chat" (opens a ticket; disabled without a number).
import { useCallback, useMemo } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import type { RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { contactsApi, ticketsApi } from '../../api/endpoints';
import { usePermissions, useUser } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { usePagedCrudList } from '../../app/usePagedCrudList';
import { toastError } from '../../app/errors';
import { ticketStore } from '../../machines/ticketStore';
import { Avatar } from '../../components/Avatar';
import { Icon } from '../../components/Icon';
import { IconButton, Muted } from '../../components/primitives';
import { ConfirmDelete, ListPage, RowActions } from '../../components/ListPage';
import { ContactRow, RowInfo } from '../../components/pageStyle';
import type { Contact, ContactEvent } from '../../api/types';
import { ContactModal } from './ContactModal';

const contactsMachine = createPagedListMachine<Contact>().provide({
  actors: {
    fetchPage: fromPromise(async ({ input }) => {
      const r = await contactsApi.search(input.searchParam, input.pageNumber);
      return { items: r.contacts ?? [], hasMore: !!r.hasMore };
    }),
  },
});

interface RowData {
  items: Contact[];
  canDelete: boolean;
  onChat: (c: Contact) => void;
  onEdit: (c: Contact) => void;
  onDelete: (c: Contact) => void;
  labels: { chat: string; edit: string; del: string };
}

function Row({ index, style, ariaAttributes, items, canDelete, onChat, onEdit, onDelete, labels }: RowComponentProps<RowData>) {
  const c = items[index];
  if (!c) return null;
  return (
    <ContactRow style={style} {...ariaAttributes} data-testid={`contact-${c.id}`}>
      <Avatar name={c.name} src={c.profilePicUrl} size={40} />
      <RowInfo>
        <strong>{c.name}</strong>
        <Muted>
          {c.number}
          {c.email ? ` · ${c.email}` : ''}
        </Muted>
      </RowInfo>
      <IconButton type="button" aria-label={labels.chat} title={labels.chat} disabled={!c.number} onClick={() => onChat(c)}>
        <Icon name="chat" />
      </IconButton>
      <RowActions editLabel={labels.edit} deleteLabel={labels.del} onEdit={() => onEdit(c)} onDelete={canDelete ? () => onDelete(c) : undefined} />
    </ContactRow>
  );
}

export default function ContactsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const user = useUser();
  const { can } = usePermissions();
  // Every contact event lands, whatever the search; no refetch on resync.
  const { items, loading, text, setText, editing, setEditing, deleting, setDeleting, onScroll, upsert, remove } = usePagedCrudList<
    Contact,
    ContactEvent
  >({
    machine: contactsMachine,
    event: 'contact',
    change: (e) => (e.action === 'delete' ? { remove: e.contactId } : { upsert: e.contact }),
    matches: () => true,
    refreshOnResync: false,
  });

  const onChat = useCallback(
    async (c: Contact) => {
      try {
        const ticket = await ticketsApi.create({ contactId: c.id, userId: user.id, status: 'open' });
        ticketStore.upsert(ticket);
        navigate(`/tickets/${ticket.id}`);
      } catch (e) {
        toastError(e);
      }
    },
    [navigate, user.id],
  );
  const rowProps = useMemo<RowData>(
    () => ({
      items,
      canDelete: can(perms.deleteContact),
      onChat: (c) => void onChat(c),
      onEdit: (c) => setEditing(c),
      onDelete: (c) => setDeleting(c),
      labels: { chat: t('contacts.actions.chat'), edit: t('contacts.actions.edit'), del: t('contacts.actions.delete') },
    }),
    [items, can, onChat, t, setEditing, setDeleting],
  );

  return (
    <ListPage
      title={t('contacts.title')}
      search={{ value: text, onChange: setText, label: t('contacts.search') }}
      add={{ label: t('contacts.actions.add'), onClick: () => setEditing('new') }}
      loading={loading}
      empty={items.length === 0}
      emptyText={t('contacts.empty')}
      rows={{ rowComponent: Row, rowCount: items.length, rowHeight: 64, rowProps, onScroll }}
    >
      {editing !== null && <ContactModal contact={editing === 'new' ? null : editing} onClose={() => setEditing(null)} onSaved={upsert} />}
      <ConfirmDelete
        item={deleting}
        title={t('contacts.delete.title')}
        body={t('contacts.delete.body', { name: deleting?.name ?? '' })}
        onClose={() => setDeleting(null)}
        remove={(c) => contactsApi.remove(c.id)}
        onRemoved={(c) => remove(c.id)}
      />
    </ListPage>
  );
}
