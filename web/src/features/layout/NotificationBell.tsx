// The bell: tickets with unread messages (spec sections 2 and 4). A ticket leaves the
// list on updateUnread or delete.
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useUser } from '../../app/session';
import { useRoom } from '../../app/realtime';
import { emptyFilters } from '../../machines/ticketList.machine';
import { useListCount, useListView, useTicketListActor, type TicketListActor } from '../tickets/useTicketList';
import { useTicket } from '../tickets/useTicket';
import { Icon } from '../../components/Icon';
import { Badge, IconButton, Muted } from '../../components/primitives';
import { MenuItem, Popover } from '../../components/Popover';
import { BellBadge, NotificationText } from './style';
import type { ID } from '../../api/types';
import { viewerOf } from '../../app/rules';

const spec = { withUnreadMessages: true };
const room = { kind: 'notification' as const };

// The bell itself does not read the list: with a steady stream of ticket updates only
// the badge re-renders, and the items only while the popover is open.
export function NotificationBell() {
  const { t } = useTranslation();
  const user = useUser();
  const [open, setOpen] = useState(false);
  useRoom(room);
  const actor = useTicketListActor(spec, emptyFilters, viewerOf(user));
  return (
    <Popover
      open={open}
      onClose={() => setOpen(false)}
      align="right"
      width={300}
      label={t('layout.notifications.title')}
      anchor={<BellButton actor={actor} open={open} onToggle={() => setOpen((o) => !o)} />}
    >
      <BellItems actor={actor} onOpen={() => setOpen(false)} />
    </Popover>
  );
}

function BellButton({ actor, open, onToggle }: { actor: TicketListActor; open: boolean; onToggle: () => void }) {
  const { t } = useTranslation();
  const count = useListCount(actor);
  return (
    <IconButton type="button" aria-label={t('layout.notifications.bell', { count })} aria-expanded={open} onClick={onToggle}>
      <Icon name="bell" />
      {count > 0 && <BellBadge>{count > 99 ? '99+' : count}</BellBadge>}
    </IconButton>
  );
}

function BellItems({ actor, onOpen }: { actor: TicketListActor; onOpen: () => void }) {
  const { t } = useTranslation();
  const { ids } = useListView(actor);
  if (ids.length === 0) {
    return (
      <NotificationText>
        <Muted>{t('layout.notifications.empty')}</Muted>
      </NotificationText>
    );
  }
  return ids.slice(0, 50).map((id) => <NotificationItem key={id} id={id} onOpen={onOpen} />);
}

function NotificationItem({ id, onOpen }: { id: ID; onOpen: () => void }) {
  const ticket = useTicket(id);
  const navigate = useNavigate();
  if (!ticket) return null;
  return (
    <MenuItem
      type="button"
      onClick={() => {
        onOpen();
        navigate(`/tickets/${id}`);
      }}
    >
      <NotificationText>
        <strong>{ticket.contact?.name ?? `#${id}`}</strong>
        <Muted>{ticket.lastMessage}</Muted>
      </NotificationText>
      <Badge $tone="success">{ticket.unreadMessages}</Badge>
    </MenuItem>
  );
}
