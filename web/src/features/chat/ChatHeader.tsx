// Header of the conversation: back to /tickets, the contact, and the ticket actions of
// spec section 2 driven by the ticket lifecycle machine (return, resolve, reopen, accept,
// transfer, invite, delete with ticket-options:deleteTicket, history, PDF report, video
// call) and, on WABA tickets, the template confirmation.
import { useEffect, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useActorRef, useSelector } from '@xstate/react';
import { usePermissions, useUser } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { toastError } from '../../app/errors';
import { useMediaQuery } from '../../app/hooks';
import { MenuItem, Popover } from '../../components/Popover';
import { toast } from '../../components/toast/toastStore';
import { Avatar } from '../../components/Avatar';
import { Icon, type IconName } from '../../components/Icon';
import { IconButton } from '../../components/primitives';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { liveTicketMachine } from '../tickets/ticketCommands';
import { TransferModal } from '../tickets/TransferModal';
import { ChannelMark } from '../tickets/ChannelMark';
import { ticketsApi } from '../../api/endpoints';
import type { ID, Ticket } from '../../api/types';
import { HistoryModal } from './HistoryModal';
import { ScheduleModal } from '../scheduledMessages/ScheduleModal';
import { AgendaTaskModal } from '../agenda/AgendaTaskModal';
import { TemplateConfirmModal } from './TemplateConfirmModal';
import { InviteModal } from '../invite/InviteModal';
import { deletedToastKey } from './prefs';
import { windowCalls } from '../videoCall/launcher';
import type { callErrors } from '../../machines/call.machine';
import { HeaderActions, HeaderBar, HeaderContact, HeaderName, HeaderSub } from './style';

export function ChatHeader({
  ticket,
  onTicketChanged,
  onToggleContact,
  contactOpen = false,
}: {
  ticket: Ticket;
  onTicketChanged: (t: Ticket) => void;
  onToggleContact: () => void;
  // Whether the contact drawer the contact button toggles is open.
  contactOpen?: boolean;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const user = useUser();
  const { list, can } = usePermissions();
  const actor = useActorRef(liveTicketMachine, { input: { ticket, userId: user.id, permissions: list } });
  const busy = useSelector(actor, (s) => s.hasTag('busy'));
  const state = useSelector(actor, (s) => (s.matches('pending') ? 'pending' : s.matches('open') ? 'open' : s.matches('closed') ? 'closed' : 'other'));
  const [transferOpen, setTransferOpen] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [historyOpen, setHistoryOpen] = useState(false);
  const [scheduleOpen, setScheduleOpen] = useState(false);
  const [taskOpen, setTaskOpen] = useState(false);
  const [templateOpen, setTemplateOpen] = useState(false);
  const [moreOpen, setMoreOpen] = useState(false);
  const [inviteOpen, setInviteOpen] = useState(false);
  const [pdfBusy, setPdfBusy] = useState(false);
  // On a phone the secondary actions fold into a menu so the contact name keeps room.
  const compact = useMediaQuery('(max-width: 477px)');

  // Follow the ticket as the socket and the chat machine see it.
  useEffect(() => {
    if (actor.getSnapshot().context.ticket !== ticket) actor.send({ type: 'ticket.synced', ticket });
  }, [actor, ticket]);

  useEffect(() => {
    const subs = [
      actor.on('changed', (e) => {
        onTicketChanged(e.ticket);
        navigate(e.openForMe ? `/tickets/${e.ticket.id}` : '/tickets');
      }),
      actor.on('deleted', (e) => {
        toast.success(t('chat.toast.deleted'), deletedToastKey(e.ticketId));
        navigate('/tickets');
      }),
      actor.on('failed', (e) => toastError(e.error)),
    ];
    return () => subs.forEach((s) => s.unsubscribe());
  }, [actor, navigate, onTicketChanged, t]);

  const contact = ticket.contact;
  type Act = {
    key: 'accept' | 'return' | 'resolve' | 'reopen' | 'transfer' | 'template' | 'schedule' | 'agendaTask' | 'invite' | 'history' | 'pdf' | 'videoCall' | 'delete';
    icon: IconName;
    run: () => void;
  };
  // The PDF report: the server renders it and answers a signed link, which the browser
  // downloads under the name the server gave.
  const downloadPdf = () => {
    setPdfBusy(true);
    downloadReport(ticket.id)
      .catch(toastError)
      .finally(() => setPdfBusy(false));
  };
  // The video call: the link goes to the customer through the ticket, the call runs
  // in a popout (features/videoCall/launcher.ts).
  const startVideoCall = () => {
    void windowCalls.launch(ticket.id, t('call.invite.text')).then((r) => {
      if (r.ok) return;
      if (r.messageKey) toast.error(t(r.messageKey as (typeof callErrors)[keyof typeof callErrors]));
      else toastError(r.error);
    });
  };
  const primary: Act[] = [];
  const secondary: Act[] = [];
  if (state === 'pending') primary.push({ key: 'accept', icon: 'check', run: () => actor.send({ type: 'ticket.accept' }) });
  if (state === 'open') {
    primary.push({ key: 'return', icon: 'undo', run: () => actor.send({ type: 'ticket.return' }) });
    primary.push({ key: 'resolve', icon: 'doneAll', run: () => actor.send({ type: 'ticket.resolve' }) });
  }
  if (state === 'closed') primary.push({ key: 'reopen', icon: 'replay', run: () => actor.send({ type: 'ticket.reopen' }) });
  if (state !== 'closed') secondary.push({ key: 'transfer', icon: 'swap', run: () => setTransferOpen(true) });
  if (ticket.channel === 'waba') secondary.push({ key: 'template', icon: 'send', run: () => setTemplateOpen(true) });
  if (can(perms.createScheduledMessage)) secondary.push({ key: 'schedule', icon: 'clock', run: () => setScheduleOpen(true) });
  if (can(perms.createScheduledMessage)) secondary.push({ key: 'agendaTask', icon: 'calendar', run: () => setTaskOpen(true) });
  // Invite a colleague to the conversation (PUT /ticketinvite/{id}).
  if (state !== 'closed') secondary.push({ key: 'invite', icon: 'group', run: () => setInviteOpen(true) });
  if (state === 'open') secondary.push({ key: 'videoCall', icon: 'videocam', run: startVideoCall });
  secondary.push({ key: 'history', icon: 'history', run: () => setHistoryOpen(true) });
  secondary.push({ key: 'pdf', icon: 'pdf', run: downloadPdf });
  if (can(perms.deleteTicket)) secondary.push({ key: 'delete', icon: 'delete', run: () => setDeleteOpen(true) });

  const button = (a: Act): ReactNode => (
    <IconButton key={a.key} type="button" aria-label={t(`chat.header.${a.key}`)} title={t(`chat.header.${a.key}`)} disabled={busy || (a.key === 'pdf' && pdfBusy)} onClick={a.run}>
      <Icon name={a.icon} />
    </IconButton>
  );

  return (
    <HeaderBar>
      <IconButton type="button" aria-label={t('chat.header.back')} onClick={() => navigate('/tickets')}>
        <Icon name="arrowBack" />
      </IconButton>
      <HeaderContact type="button" onClick={onToggleContact} aria-label={t('chat.header.contactInfo')} aria-expanded={contactOpen}>
        <Avatar name={contact?.name} src={contact?.profilePicUrl || contact?.displayPic} size={40} />
        <span>
          <HeaderName>{contact?.name ?? `#${ticket.id}`}</HeaderName>
          <HeaderSub>
            <ChannelMark channel={ticket.channel} /> {contact?.number}
            {ticket.user?.name && ` · ${t('chat.header.assignedTo', { name: ticket.user.name })}`}
          </HeaderSub>
        </span>
      </HeaderContact>
      <HeaderActions>
        {primary.map(button)}
        {compact ? (
          <Popover
            open={moreOpen}
            onClose={() => setMoreOpen(false)}
            align="right"
            label={t('chat.header.more')}
            anchor={
              <IconButton type="button" aria-label={t('chat.header.more')} aria-expanded={moreOpen} onClick={() => setMoreOpen((o) => !o)}>
                <Icon name="menu" />
              </IconButton>
            }
          >
            {secondary.map((a) => (
              <MenuItem
                key={a.key}
                type="button"
                disabled={busy || (a.key === 'pdf' && pdfBusy)}
                onClick={() => {
                  setMoreOpen(false);
                  a.run();
                }}
              >
                <Icon name={a.icon} size={18} />
                {t(`chat.header.${a.key}`)}
              </MenuItem>
            ))}
          </Popover>
        ) : (
          secondary.map(button)
        )}
      </HeaderActions>
      <TransferModal
        ticketId={ticket.id}
        open={transferOpen}
        onClose={() => setTransferOpen(false)}
        onSubmit={(target) => actor.send({ type: 'ticket.transfer', ...target })}
      />
      <ConfirmDialog
        open={deleteOpen}
        title={t('chat.deleteTicket.title')}
        confirmLabel={t('common.actions.delete')}
        busy={busy}
        onClose={() => setDeleteOpen(false)}
        onConfirm={() => {
          setDeleteOpen(false);
          actor.send({ type: 'ticket.delete' });
        }}
      >
        {t('chat.deleteTicket.body')}
      </ConfirmDialog>
      <HistoryModal ticketId={ticket.id} open={historyOpen} onClose={() => setHistoryOpen(false)} />
      {taskOpen && (
        <AgendaTaskModal ticketId={ticket.id} contact={contact ? { id: contact.id, name: contact.name } : null} onClose={() => setTaskOpen(false)} />
      )}
      {scheduleOpen && (
        <ScheduleModal schedule={null} ticketId={ticket.id} contactId={ticket.contactId} onClose={() => setScheduleOpen(false)} onSaved={() => undefined} />
      )}
      {inviteOpen && <InviteModal ticket={ticket} onClose={() => setInviteOpen(false)} />}
      {templateOpen && <TemplateConfirmModal ticket={ticket} attendantName={user.name} onClose={() => setTemplateOpen(false)} />}
    </HeaderBar>
  );
}

// downloadReport asks the server for ticket id's PDF report and saves it through a
// temporary link (the signed URL needs no Authorization header).
export async function downloadReport(id: ID): Promise<void> {
  const { url, name } = await ticketsApi.exportReport(id);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
}
