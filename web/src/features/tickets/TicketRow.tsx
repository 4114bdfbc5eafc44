// One row of the ticket list (spec section 2, Ticket row). It reads its ticket from the
// store by id. Clicking opens the conversation, except for pending rows, which only act
// through Accept, Spy (open without accepting) and Transfer.
import { memo, type CSSProperties, type KeyboardEvent } from 'react';
import { useT } from '../../i18n/useT';
import { sameRowProps } from '../../components/rowProps';
import { useNow } from '../../app/hooks';
import { formatListTime } from '../../app/format';
import { Avatar } from '../../components/Avatar';
import { Badge, Button } from '../../components/primitives';
import { AgeBadge } from './AgeBadge';
import { rowText } from './rowText';
import { ChannelMark } from './ChannelMark';
import { useTicket } from './useTicket';
import type { ID, Ticket } from '../../api/types';
import {
  RowActions,
  RowBody,
  RowLine,
  RowName,
  RowPreview,
  RowShell,
  RowSlot,
  RowTime,
  QueueStripe,
  UserTag,
} from './style';

export interface TicketRowActions {
  onOpen: (id: ID) => void;
  onAccept: (ticket: Ticket) => void;
  onSpy: (id: ID) => void;
  onTransfer: (ticket: Ticket) => void;
}

export interface TicketRowProps extends TicketRowActions {
  id: ID;
  selected?: boolean;
  style?: CSSProperties;
  ariaAttributes?: Record<string, unknown>;
}

// The row is two parts: a slot that react-window positions (style, list aria
// attributes) and the content, memoised on the ticket id alone. When a ticket moves to
// the top of the list every row between shifts down one place: with rows keyed by id
// (TicketList's rowKey) only the slots' positions change, not the contents.
export const TicketRow = memo(function TicketRow({ id, selected, style, ariaAttributes, ...actions }: TicketRowProps) {
  return (
    <RowSlot style={style} {...ariaAttributes}>
      <TicketRowContent id={id} selected={!!selected} {...actions} />
    </RowSlot>
  );
}, sameRowProps);

const TicketRowContent = memo(function TicketRowContent({
  id,
  selected,
  onOpen,
  onAccept,
  onSpy,
  onTransfer,
}: TicketRowActions & { id: ID; selected: boolean }) {
  const text = rowText(useT());
  const ticket = useTicket(id);
  const now = useNow(60_000);
  if (!ticket) return null;
  const pending = ticket.status === 'pending';
  const name = ticket.contact?.name || ticket.contact?.number || text.unknownContact;
  const open = () => {
    if (!pending) onOpen(id);
  };
  const onKey = (e: KeyboardEvent) => {
    if ((e.key === 'Enter' || e.key === ' ') && e.target === e.currentTarget) {
      e.preventDefault();
      open();
    }
  };
  return (
    <RowShell
      $selected={selected}
      $clickable={!pending}
      tabIndex={0}
      aria-current={selected ? 'true' : undefined}
      aria-label={name}
      data-testid={`ticket-row-${id}`}
      onClick={open}
      onKeyDown={onKey}
    >
      <QueueStripe
        $color={ticket.queue?.color}
        title={ticket.queue?.name ?? text.noQueue}
        aria-label={ticket.queue?.name ?? text.noQueue}
        role="img"
      />
      <Avatar name={name} src={ticket.contact?.profilePicUrl || ticket.contact?.displayPic} size={44} />
      <RowBody>
        <RowLine>
          <RowName>{name}</RowName>
          {ticket.status === 'closed' && <Badge $tone="muted">{text.resolved}</Badge>}
          <RowTime>{formatListTime(ticket.updatedAt, now)}</RowTime>
        </RowLine>
        <RowLine>
          <RowPreview>{text.preview(ticket.lastMessage)}</RowPreview>
          {ticket.unreadMessages > 0 && (
            <Badge $tone="success" aria-label={text.unread(ticket.unreadMessages)}>
              {ticket.unreadMessages}
            </Badge>
          )}
        </RowLine>
        <RowLine>
          <ChannelMark channel={ticket.channel} />
          {ticket.user?.name && <UserTag>{ticket.user.name}</UserTag>}
          <AgeBadge updatedAt={ticket.updatedAt} />
        </RowLine>
        {pending && (
          <RowLine>
            <RowActions onClick={(e) => e.stopPropagation()}>
              <Button type="button" $small onClick={() => onAccept(ticket)}>
                {text.accept}
              </Button>
              <Button type="button" $small $variant="secondary" onClick={() => onSpy(id)}>
                {text.spy}
              </Button>
              <Button type="button" $small $variant="ghost" onClick={() => onTransfer(ticket)}>
                {text.transfer}
              </Button>
            </RowActions>
          </RowLine>
        )}
      </RowBody>
    </RowShell>
  );
});
