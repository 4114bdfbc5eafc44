// The conversation screen (/tickets/:ticketId): header with the ticket actions, the
// message list, the composer and the contact drawer. Socket events for this ticket
// arrive through the chatBox room.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useActorRef, useSelector } from '@xstate/react';
import { useTheme } from 'styled-components';
import { useRealtimeEvent, useResync, useRoom } from '../../app/realtime';
import { usePermissions, useUser } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { toastError } from '../../app/errors';
import { useMediaQuery } from '../../app/hooks';
import { toast } from '../../components/toast/toastStore';
import { Splash } from '../../components/Splash';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { messagesApi } from '../../api/endpoints';
import type { AppMessageEvent, ContactEvent, ID, Message, Ticket, TicketEvent } from '../../api/types';
import { liveChatMachine } from './liveChat';
import { ChatHeader } from './ChatHeader';
import { MessageList } from './MessageList';
import { Composer, useComposer } from './Composer';
import { ContactDrawer } from './ContactDrawer';
import { TagPicker } from './TagPicker';
import { TranslateDialog } from './TranslateDialog';
import { useAIConfigured } from '../ai/useAIConfigured';
import { deletedToastKey, drawerRemembered, rememberDrawer } from './prefs';
import { ChatColumn, ChatFrame, ErrorBox } from './style';

export default function ChatPanel({ ticketId }: { ticketId: ID }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const theme = useTheme();
  const user = useUser();
  const { can } = usePermissions();
  const chat = useActorRef(liveChatMachine, { input: { ticketId } });
  const ticket = useSelector(chat, (s) => s.context.ticket);
  const messages = useSelector(chat, (s) => s.context.messages);
  const hasMore = useSelector(chat, (s) => s.context.hasMore);
  const loading = useSelector(chat, (s) => s.hasTag('loading'));
  const loadingOlder = useSelector(chat, (s) => s.hasTag('loadingOlder'));
  const failed = useSelector(chat, (s) => s.matches('failed'));
  const wide = !useMediaQuery(`(max-width: ${theme.breakpoints.split + theme.layout.contactDrawerWidth - 1}px)`);
  // Where the drawer overlays the conversation (narrow screens) it opens only when
  // asked for; the remembered choice is the wide screen's, where it sits beside it.
  const [drawerOpen, setDrawerOpen] = useState(() => wide && drawerRemembered());
  const [deleting, setDeleting] = useState<Message | null>(null);
  const [translating, setTranslating] = useState<Message | null>(null);
  const canSign = can(perms.adminMenu);
  const aiOn = useAIConfigured();
  const composer = useComposer(ticketId, ticket?.status === 'open', canSign, user.name, ticket?.channel);

  useRoom(useMemo(() => ({ kind: 'chatBox' as const, ticketId }), [ticketId]));
  useRealtimeEvent<AppMessageEvent>('appMessage', (event) => chat.send({ type: 'chat.message', event }));
  useRealtimeEvent<TicketEvent>('ticket', (event) => chat.send({ type: 'chat.ticket', event }));
  useRealtimeEvent<ContactEvent>('contact', (e) => {
    const current = chat.getSnapshot().context.ticket;
    if (current && e.action === 'update' && e.contact.id === current.contactId)
      chat.send({ type: 'chat.ticketChanged', ticket: { ...current, contact: { ...current.contact, ...e.contact } } });
  });
  useResync(() => chat.send({ type: 'chat.reload' }));

  useEffect(() => {
    const subs = [
      // The deleting attendant's header toasts too: the shared key shows it once.
      chat.on('deleted', (e) => {
        toast.success(t('chat.toast.deleted'), deletedToastKey(e.ticketId));
        navigate('/tickets');
      }),
      chat.on('notFound', () => {
        toastError(new Error('ERR_NO_TICKET_FOUND'));
        navigate('/tickets');
      }),
      chat.on('failed', (e) => toastError(e.error)),
    ];
    return () => subs.forEach((s) => s.unsubscribe());
  }, [chat, navigate, t]);

  const onReply = useCallback((m: Message) => composer.send({ type: 'composer.reply', message: m }), [composer]);
  const onDelete = useCallback((m: Message) => setDeleting(m), []);
  const onTranslate = useCallback((m: Message) => setTranslating(m), []);
  const onTicketChanged = useCallback((next: Ticket) => chat.send({ type: 'chat.ticketChanged', ticket: next }), [chat]);
  const loadOlder = useCallback(() => chat.send({ type: 'chat.loadOlder' }), [chat]);

  if (loading && !ticket) return <Splash />;
  if (failed || !ticket) return <ErrorBox role="alert">{t('chat.errors.load')}</ErrorBox>;

  const toggleDrawer = (open: boolean) => {
    setDrawerOpen(open);
    if (wide) rememberDrawer(open);
  };
  return (
    <ChatFrame>
      <ChatColumn>
        <ChatHeader
          ticket={ticket}
          onTicketChanged={onTicketChanged}
          contactOpen={drawerOpen}
          onToggleContact={() => toggleDrawer(!drawerOpen)}
        />
        <TagPicker ticket={ticket} onTicketChanged={onTicketChanged} />
        <MessageList
          messages={messages}
          hasMore={hasMore}
          loadingOlder={loadingOlder}
          onLoadOlder={loadOlder}
          onReply={onReply}
          onDelete={onDelete}
          onTranslate={onTranslate}
        />
        <Composer actor={composer} ticketId={ticketId} status={ticket.status} canSign={canSign} userName={user.name} channel={ticket.channel} aiOn={aiOn} />
      </ChatColumn>
      {drawerOpen && ticket.contact && (
        <ContactDrawer contact={ticket.contact} overlay={!wide} onClose={() => toggleDrawer(false)} />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('chat.deleteMessage.title')}
        confirmLabel={t('common.actions.delete')}
        onClose={() => setDeleting(null)}
        onConfirm={() => {
          const m = deleting;
          setDeleting(null);
          if (m) messagesApi.remove(m.id, m.ticketId).catch(toastError);
        }}
      >
        {t('chat.deleteMessage.body')}
      </ConfirmDialog>
      <TranslateDialog message={translating} onClose={() => setTranslating(null)} />
    </ChatFrame>
  );
}
