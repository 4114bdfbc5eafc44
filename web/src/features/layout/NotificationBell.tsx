// The bell: tickets with unread messages (spec sections 2 and 4). A ticket leaves the
// list on updateUnread or delete.
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useUser } from '../../app/session';
import { useRoom } from '../../app/realtime';
import { emptyFilters } from '../../machines/ticketList.machine';
import { useTicketList } from '../tickets/useTicketList';
import { useTicket } from '../tickets/useTicket';
import { Icon } from '../../components/Icon';
import { Badge, IconButton, Muted } from '../../components/primitives';
import { MenuItem, Popover } from '../../components/Popover';
import { BellBadge, NotificationText } from './style';
import type { ID } from '../../api/types';

const spec = { withUnreadMessages: true };
const room = { kind: 'notification' as const };

export function NotificationBell() {
  const { t } = useTranslation();
  const user = useUser();
  const [open, setOpen] = useState(false);
  useRoom(room);
  const { ids, count } = useTicketList(spec, emptyFilters, user.id);
  return (
    <Popover
      open={open}
      onClose={() => setOpen(false)}
      align="right"
      width={300}
      label={t('layout.notifications.title')}
      anchor={
        <IconButton
          type="button"
          aria-label={t('layout.notifications.bell', { count })}
          aria-expanded={open}
          onClick={() => setOpen((o) => !o)}
        >
          <Icon name="bell" />
          {count > 0 && <BellBadge>{count > 99 ? '99+' : count}</BellBadge>}
        </IconButton>
      }
    >
      {ids.length === 0 ? (
        <NotificationText>
          <Muted>{t('layout.notifications.empty')}</Muted>
        </NotificationText>
      ) : (
        ids.slice(0, 50).map((id) => <NotificationItem key={id} id={id} onOpen={() => setOpen(false)} />)
      )}
    </Popover>
  );
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
