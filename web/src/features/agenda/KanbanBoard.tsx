// The kanban board (/Kanban): POST /agenda/kanboard with size 'large' (12 columns) or
// 'short', cards coloured by tag level, status 26 as a reduced card, info / conclude
// ('✅ Fechou') / cancel ('❌ Desqualificado') buttons, and drag between columns with
// dnd-kit sending POST /agenda/kanboard/{id} {id, from, to}. The board is read again
// every 10 s and on every realtime "booking" event; archived cards leave it then.
// Kanban errors are not shown (spec section 8): a refused move (another attendant
// moved the card first) just reloads the board.
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  useDraggable,
  useDroppable,
  useSensor,
  useSensors,
  type DragEndEvent,
} from '@dnd-kit/core';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { formatDay, formatTime } from '../../app/format';
import { Button, Badge, IconButton, Muted, Select } from '../../components/primitives';
import { Icon } from '../../components/Icon';
import type { ID } from '../../api/types';
import { agendaApi, reducedStatus, tagTone, type BoardSize, type Booking, type BookingEvent, type KanbanColumn } from './api';
import { BookingInfoDialog } from './BookingInfoDialog';
import { Board, Card, CardActions, CardLine, Column, ColumnTitle, DragHandle } from './style';

// Spec section 9: the announcement kanban refresh every 10 s.
export const boardRefreshMs = 10_000;

// moveCard is the board after card id moved to column to, or null when nothing moves
// (unknown card or column, or the same column).
export function moveCard(cols: KanbanColumn[], id: ID, to: ID): { board: KanbanColumn[]; from: ID } | null {
  const source = cols.find((c) => c.ConfirmedBooking.some((b) => b.id === id));
  const target = cols.find((c) => c.id === to);
  if (!source || !target || source.id === target.id) return null;
  const card = source.ConfirmedBooking.find((b) => b.id === id)!;
  const board = cols.map((c) => {
    if (c.id === source.id) return { ...c, ConfirmedBooking: c.ConfirmedBooking.filter((b) => b.id !== id) };
    if (c.id === target.id) return { ...c, ConfirmedBooking: [...c.ConfirmedBooking, { ...card, columnId: to }] };
    return c;
  });
  return { board, from: source.id };
}

// applyBooking folds a realtime booking into the board: an archived one leaves it,
// any other takes its place in its column (added when new, moved when moved). A
// booking of a column the board does not show (the short board) leaves it.
export function applyBooking(cols: KanbanColumn[], b: Booking): KanbanColumn[] {
  return cols.map((c) => {
    const rest = c.ConfirmedBooking.filter((x) => x.id !== b.id);
    if (c.id === b.columnId && !b.archived) {
      const at = c.ConfirmedBooking.findIndex((x) => x.id === b.id);
      if (at >= 0) return { ...c, ConfirmedBooking: c.ConfirmedBooking.map((x) => (x.id === b.id ? b : x)) };
      return { ...c, ConfirmedBooking: [...rest, b] };
    }
    return rest.length === c.ConfirmedBooking.length ? c : { ...c, ConfirmedBooking: rest };
  });
}

function BookingCard({
  booking,
  onInfo,
  onConclude,
  onCancel,
}: {
  booking: Booking;
  onInfo: () => void;
  onConclude: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const { attributes, listeners, setNodeRef, isDragging } = useDraggable({
    id: booking.id,
    attributes: { roleDescription: t('agenda.kanban.dragHint') },
  });
  const reduced = booking.status === reducedStatus;
  const title = booking.name || booking.bookingName || booking.description;
  const level = /^(10|[1-9])$/.test(booking.tagJson) ? booking.tagJson : '';
  return (
    <Card
      ref={setNodeRef}
      $tone={tagTone(booking.tagJson)}
      $dragging={isDragging}
      $reduced={reduced}
      data-testid={`kanban-card-${booking.id}`}
      data-tone={tagTone(booking.tagJson)}
      data-reduced={reduced || undefined}
    >
      {/* The title row is the drag handle (pointer or keyboard: space, arrows, space),
          so the card's buttons are not nested inside a draggable button. */}
      <DragHandle {...attributes} {...listeners} title={t('agenda.kanban.dragHint')}>
        <strong>{title}</strong>
      </DragHandle>
      <CardLine>
        {formatDay(booking.bookingTzidFrom)} {formatTime(booking.bookingTzidFrom)}–{formatTime(booking.bookingTzidTo)}
      </CardLine>
      {!reduced && (
        <>
          {booking.name && booking.description && <CardLine>{booking.description}</CardLine>}
          {booking.bookingTypeName && <CardLine>{booking.bookingTypeName}</CardLine>}
          {booking.contactNumber && <Muted>{booking.contactNumber}</Muted>}
          {booking.username && <Muted>{booking.username}</Muted>}
          {booking.positionName && <Badge $color={booking.positionColor || undefined}>{booking.positionName}</Badge>}
          {level && <Muted>{t('agenda.kanban.tagLevel', { level })}</Muted>}
        </>
      )}
      {booking.label && <Badge>{booking.label}</Badge>}
      {!booking.archived && (
        <CardActions>
          <IconButton type="button" aria-label={t('agenda.kanban.info')} title={t('agenda.kanban.info')} onClick={onInfo}>
            <Icon name="info" />
          </IconButton>
          <Button type="button" $small $variant="ghost" title={t('agenda.kanban.concludeHint')} onClick={onConclude}>
            {t('agenda.kanban.conclude')}
          </Button>
          <Button type="button" $small $variant="ghost" title={t('agenda.kanban.cancelHint')} onClick={onCancel}>
            {t('agenda.kanban.cancel')}
          </Button>
        </CardActions>
      )}
    </Card>
  );
}

function BoardColumn({ column, children }: { column: KanbanColumn; children: React.ReactNode }) {
  const { t } = useTranslation();
  const { setNodeRef, isOver } = useDroppable({ id: column.id });
  return (
    <Column ref={setNodeRef} $over={isOver} aria-label={column.name} tabIndex={0} data-testid={`kanban-column-${column.id}`}>
      <ColumnTitle>
        <span>{column.name}</span>
        <Muted>{column.ConfirmedBooking.length}</Muted>
      </ColumnTitle>
      {column.ConfirmedBooking.length === 0 && <Muted>{t('agenda.kanban.empty')}</Muted>}
      {children}
    </Column>
  );
}

export function KanbanBoard({ refreshMs = boardRefreshMs }: { refreshMs?: number }) {
  const { t } = useTranslation();
  const [size, setSize] = useState<BoardSize>('large');
  const [columns, setColumns] = useState<KanbanColumn[]>([]);
  const [info, setInfo] = useState<Booking | null>(null);
  // A load started before the latest one must not overwrite it.
  const generation = useRef(0);

  const load = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const board = await agendaApi.board(size);
      if (mine === generation.current) setColumns(board);
    } catch {
      // Kanban errors are ignored (spec section 8); the next refresh tries again.
    }
  }, [size]);

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), refreshMs);
    return () => clearInterval(timer);
  }, [load, refreshMs]);

  useRealtimeEvent<BookingEvent>('booking', (e) => {
    if (e?.booking) setColumns((cols) => applyBooking(cols, e.booking));
  });
  useResync(() => void load());

  const move = useCallback(
    async (id: ID, to: ID) => {
      const r = moveCard(columns, id, to);
      if (!r) return;
      setColumns(r.board);
      generation.current++; // a load in flight predates this move
      try {
        const saved = await agendaApi.move(id, r.from, to);
        setColumns((cols) => applyBooking(cols, saved));
      } catch {
        void load();
      }
    },
    [columns, load],
  );

  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 5 } }), useSensor(KeyboardSensor));
  const onDragEnd = (e: DragEndEvent) => {
    if (e.over) void move(Number(e.active.id), Number(e.over.id));
  };
  const firstOf = (kind: 'won' | 'lost') => columns.find((c) => c.kind === kind)?.id;

  return (
    <>
      <label>
        {t('agenda.kanban.size.label')}{' '}
        <Select name="size" value={size} onChange={(e) => setSize(e.target.value as BoardSize)}>
          <option value="large">{t('agenda.kanban.size.large')}</option>
          <option value="short">{t('agenda.kanban.size.short')}</option>
        </Select>
      </label>
      <DndContext sensors={sensors} onDragEnd={onDragEnd}>
        <Board aria-label={t('agenda.kanban.label')} data-size={size} tabIndex={0}>
          {columns.map((c) => (
            <BoardColumn key={c.id} column={c}>
              {c.ConfirmedBooking.map((b) => (
                <BookingCard
                  key={b.id}
                  booking={b}
                  onInfo={() => setInfo(b)}
                  onConclude={() => {
                    const to = firstOf('won');
                    if (to) void move(b.id, to);
                  }}
                  onCancel={() => {
                    const to = firstOf('lost');
                    if (to) void move(b.id, to);
                  }}
                />
              ))}
            </BoardColumn>
          ))}
        </Board>
      </DndContext>
      <BookingInfoDialog booking={info} onClose={() => setInfo(null)} />
    </>
  );
}
