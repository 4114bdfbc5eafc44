// /contacts: searchable, virtualised contact list with create, edit, delete (permission
// contacts-page:deleteContact) and "chat" (opens a ticket; disabled without a number).
import { useCallback, useEffect, useMemo, useState, type UIEvent } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useActorRef, useSelector } from '@xstate/react';
import { fromPromise } from 'xstate';
import { List, type RowComponentProps } from 'react-window';
import { createPagedListMachine } from '../../machines/pagedList.machine';
import { contactsApi, ticketsApi } from '../../api/endpoints';
import { useDebounced } from '../../app/hooks';
import { usePermissions, useUser } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent } from '../../app/realtime';
import { toastError } from '../../app/errors';
import { ticketStore } from '../../machines/ticketStore';
import { Avatar } from '../../components/Avatar';
import { Icon } from '../../components/Icon';
import { Button, IconButton, Input, Muted } from '../../components/primitives';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Spinner } from '../../components/Splash';
import type { Contact, ContactEvent } from '../../api/types';
import { ContactModal } from './ContactModal';
import { ContactRow, Header, ListArea, Page, RowInfo, Title } from './style';
import { nearBottom } from '../../app/scroll';

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
      <IconButton type="button" aria-label={labels.edit} title={labels.edit} onClick={() => onEdit(c)}>
        <Icon name="edit" />
      </IconButton>
      {canDelete && (
        <IconButton type="button" aria-label={labels.del} title={labels.del} onClick={() => onDelete(c)}>
          <Icon name="delete" />
        </IconButton>
      )}
    </ContactRow>
  );
}

export default function ContactsPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const user = useUser();
  const { can } = usePermissions();
  const list = useActorRef(contactsMachine, { input: {} });
  const items = useSelector(list, (s) => s.context.items);
  const hasMore = useSelector(list, (s) => s.context.hasMore);
  const loading = useSelector(list, (s) => s.hasTag('loading'));
  const loadingMore = useSelector(list, (s) => s.hasTag('loadingMore'));
  const [text, setText] = useState('');
  const search = useDebounced(text.trim(), 500);
  const [editing, setEditing] = useState<Contact | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Contact | null>(null);

  useEffect(() => {
    if (list.getSnapshot().context.searchParam !== search) list.send({ type: 'list.search', searchParam: search });
  }, [list, search]);

  useRealtimeEvent<ContactEvent>('contact', (e) =>
    e.action === 'delete' ? list.send({ type: 'list.remove', id: e.contactId }) : list.send({ type: 'list.upsert', item: e.contact }),
  );

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
    [items, can, onChat, t],
  );
  const onScroll = (e: UIEvent<HTMLDivElement>) => {
    const el = e.currentTarget;
    if (hasMore && !loadingMore && nearBottom(el)) list.send({ type: 'list.nextPage' });
  };

  return (
    <Page>
      <Header>
        <Title>{t('contacts.title')}</Title>
        <Input
          type="search"
          value={text}
          aria-label={t('contacts.search')}
          placeholder={t('contacts.search')}
          onChange={(e) => setText(e.target.value)}
          style={{ maxWidth: 280 }}
        />
        <Button type="button" onClick={() => setEditing('new')}>
          <Icon name="add" size={18} />
          {t('contacts.actions.add')}
        </Button>
      </Header>
      <ListArea>
        {loading && items.length === 0 ? (
          <Spinner />
        ) : items.length === 0 ? (
          <Muted>{t('contacts.empty')}</Muted>
        ) : (
          <List
            aria-label={t('contacts.title')}
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
        <ContactModal
          contact={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(c) => list.send({ type: 'list.upsert', item: c })}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('contacts.delete.title')}
        confirmLabel={t('common.actions.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          const c = deleting;
          setDeleting(null);
          if (c)
            contactsApi.remove(c.id).then(
              () => list.send({ type: 'list.remove', id: c.id }),
              toastError,
            );
        }}
      >
        {t('contacts.delete.body', { name: deleting?.name ?? '' })}
      </ConfirmDialog>
    </Page>
  );
}
