// An internal chat's conversation, virtualised like the ticket chat: react-window v2
// with the ticket chat's scrolling (../chat/useStickyList: opens at the bottom, follows
// new messages there, asks for the older page near the top and keeps what is on screen
// still when it is prepended).
import { useCallback, useMemo } from 'react';
import { List, type RowComponentProps } from 'react-window';
import { useTranslation } from 'react-i18next';
import { formatDay, formatTime, sameDay } from '../../app/format';
import { Spinner } from '../../components/Splash';
import type { ID, InternalChatMessage } from '../../api/types';
import { useStickyList } from '../chat/useStickyList';
import { Body, Bubble, BubbleMeta, BubbleRow, DayChip, DayRow, ListBox, LoaderRow } from '../chat/style';
import { MediaImage, Sender } from './style';

// ChatMedia shows a message's file: pictures inline (a fixed height, so the row's
// measured height does not jump when the picture loads), anything else as a link.
function ChatMedia({ message: m }: { message: InternalChatMessage }) {
  if (m.mediaType === 'image')
    return (
      <a href={m.mediaUrl} target="_blank" rel="noreferrer">
        <MediaImage src={m.mediaUrl} alt={m.mediaName ?? ''} />
      </a>
    );
  return (
    <a href={m.mediaUrl} target="_blank" rel="noreferrer" download={m.mediaName}>
      {m.mediaName}
    </a>
  );
}

export type ChatRow =
  | { kind: 'loader'; key: string }
  | { kind: 'day'; key: string; day: string }
  | { kind: 'message'; key: string; message: InternalChatMessage };

// chatRows lays messages (oldest first) out with a day separator before each new day.
export function chatRows(messages: InternalChatMessage[], loadingOlder: boolean): ChatRow[] {
  const rows: ChatRow[] = loadingOlder ? [{ kind: 'loader', key: 'loader' }] : [];
  let prev: InternalChatMessage | null = null;
  for (const m of messages) {
    if (!prev || !sameDay(prev.createdAt, m.createdAt)) rows.push({ kind: 'day', key: `d-${m.id}`, day: formatDay(m.createdAt) });
    rows.push({ kind: 'message', key: `m-${m.id}`, message: m });
    prev = m;
  }
  return rows;
}

interface RowData {
  rows: ChatRow[];
  me: ID;
}

function Row({ index, style, ariaAttributes, rows, me }: RowComponentProps<RowData>) {
  const row = rows[index];
  if (!row) return null;
  if (row.kind === 'loader')
    return (
      <LoaderRow style={style} {...ariaAttributes}>
        <Spinner $size={20} />
      </LoaderRow>
    );
  if (row.kind === 'day')
    return (
      <DayRow style={style} {...ariaAttributes}>
        <DayChip>{row.day}</DayChip>
      </DayRow>
    );
  const m = row.message;
  const mine = m.senderId === me;
  return (
    <BubbleRow style={style} {...ariaAttributes} $out={mine} data-testid={`chat-message-${m.id}`}>
      <Bubble $kind={mine ? 'out' : 'in'}>
        {!mine && <Sender>{m.sender?.name}</Sender>}
        {m.mediaUrl && <ChatMedia message={m} />}
        {m.message && <Body>{m.message}</Body>}
        <BubbleMeta>{formatTime(m.createdAt)}</BubbleMeta>
      </Bubble>
    </BubbleRow>
  );
}

export function ChatMessageList({
  messages,
  me,
  hasMore,
  loadingOlder,
  onLoadOlder,
}: {
  messages: InternalChatMessage[];
  me: ID;
  hasMore: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
}) {
  const { t } = useTranslation();
  const rows = useMemo(() => chatRows(messages, loadingOlder), [messages, loadingOlder]);
  const keys = useMemo(() => rows.map((r) => r.key), [rows]);
  const { listRef, heights, onScroll, onRowsRendered } = useStickyList(keys, 64, {
    hasMore,
    loading: loadingOlder,
    load: onLoadOlder,
  });
  const rowProps = useMemo<RowData>(() => ({ rows, me }), [rows, me]);
  const rowKey = useCallback((index: number, data: RowData) => data.rows[index]?.key ?? index, []);
  return (
    <ListBox>
      <List
        aria-label={t('internalChat.messages.label')}
        listRef={listRef}
        rowComponent={Row}
        rowCount={rows.length}
        rowHeight={heights}
        rowKey={rowKey}
        rowProps={rowProps}
        overscanCount={8}
        onScroll={onScroll}
        onRowsRendered={onRowsRendered}
        style={{ height: '100%' }}
      />
    </ListBox>
  );
}
