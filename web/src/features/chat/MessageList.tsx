// The conversation, virtualised with react-window v2 and keyed dynamic heights.
// - Opens at the bottom and follows new messages while the reader is at the bottom.
// - Scrolling within 50 px of the top asks for the older page; when it arrives the rows
//   on screen stay where they were (the height of what was prepended, and of rows
//   above that get measured later, is added to scrollTop).
import { useCallback, useLayoutEffect, useMemo, useRef, type UIEvent } from 'react';
import { List, useListRef, type RowComponentProps } from 'react-window';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../../components/Splash';
import type { Message } from '../../api/types';
import { buildRows, type ChatRow } from './rows';
import { MessageItem, type MessageActions } from './MessageItem';
import { useKeyedRowHeight } from './useKeyedRowHeight';
import { DayChip, DayRow, ListBox, LoaderRow } from './style';

export const olderPageThresholdPx = 50;
const bottomSlackPx = 40;

interface RowData extends MessageActions {
  rows: ChatRow[];
}

function Row({ index, style, ariaAttributes, rows, ...actions }: RowComponentProps<RowData>) {
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
  return <MessageItem message={row.message} style={style} ariaAttributes={ariaAttributes} {...actions} />;
}

export function MessageList({
  messages,
  hasMore,
  loadingOlder,
  onLoadOlder,
  ...actions
}: {
  messages: Message[];
  hasMore: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
} & MessageActions) {
  const { t } = useTranslation();
  const listRef = useListRef(null);
  const rows = useMemo(() => buildRows(messages, loadingOlder), [messages, loadingOlder]);
  const keys = useMemo(() => rows.map((r) => r.key), [rows]);
  const firstVisible = useRef(0);
  const pendingShift = useRef(0);
  const stick = useRef(true);
  const prevKeys = useRef<readonly string[]>([]);

  const heights = useKeyedRowHeight(
    keys,
    72,
    () => firstVisible.current,
    (delta) => {
      pendingShift.current += delta;
    },
  );

  // Keep the view still across prepends and late measurements, or pinned to the bottom.
  useLayoutEffect(() => {
    const el = listRef.current?.element;
    if (!el) return;
    const before = prevKeys.current;
    prevKeys.current = keys;
    if (stick.current) {
      el.scrollTop = el.scrollHeight;
      pendingShift.current = 0;
      return;
    }
    // Rows added in front of what was first: find where the old first message went.
    const oldFirst = before.find((k) => k.startsWith('m-'));
    if (oldFirst) {
      const at = keys.indexOf(oldFirst);
      const wasAt = before.indexOf(oldFirst);
      if (at > wasAt) {
        let added = 0;
        for (let i = 0; i < at; i++) added += heights.heightOfKey(keys[i]);
        for (let i = 0; i < wasAt; i++) added -= heights.heightOfKey(before[i]);
        pendingShift.current += added;
      }
    }
    if (pendingShift.current !== 0) {
      el.scrollTop += pendingShift.current;
      pendingShift.current = 0;
    }
  }, [keys, heights, listRef]);

  const onScroll = (e: UIEvent<HTMLDivElement>) => {
    const el = e.currentTarget;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight <= bottomSlackPx;
    if (el.scrollTop <= olderPageThresholdPx && hasMore && !loadingOlder) onLoadOlder();
  };

  const rowProps = useMemo<RowData>(
    () => ({ rows, ...actions }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [rows, actions.onReply, actions.onDelete, actions.onTranslate],
  );
  const rowKey = useCallback((index: number, data: RowData) => data.rows[index]?.key ?? index, []);

  return (
    <ListBox>
      <List
        aria-label={t('chat.messages.label')}
        listRef={listRef}
        rowComponent={Row}
        rowCount={rows.length}
        rowHeight={heights}
        rowKey={rowKey}
        rowProps={rowProps}
        overscanCount={8}
        onScroll={onScroll}
        onRowsRendered={(visible) => {
          firstVisible.current = visible.startIndex;
        }}
        style={{ height: '100%' }}
      />
    </ListBox>
  );
}
