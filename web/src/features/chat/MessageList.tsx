// The conversation, virtualised with react-window v2 and keyed dynamic heights.
// - Opens at the bottom and follows new messages while the reader is at the bottom.
// - Scrolling within 50 px of the top asks for the older page; when it arrives the rows
//   on screen stay where they were (the height of what was prepended, and of rows
//   above that get measured later, is added to scrollTop).
import { useCallback, useMemo } from 'react';
import { List, type RowComponentProps } from 'react-window';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../../components/Splash';
import type { Message } from '../../api/types';
import { buildRows, type ChatRow } from './rows';
import { MessageItem, type MessageActions } from './MessageItem';
import { useStickyList } from './useStickyList';
import { DayChip, DayRow, ListBox, LoaderRow } from './style';

export { olderPageThresholdPx } from './useStickyList';

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
  const rows = useMemo(() => buildRows(messages, loadingOlder), [messages, loadingOlder]);
  const keys = useMemo(() => rows.map((r) => r.key), [rows]);
  const { listRef, heights, onScroll, onRowsRendered } = useStickyList(keys, 72, {
    hasMore,
    loading: loadingOlder,
    load: onLoadOlder,
  });

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
        onRowsRendered={onRowsRendered}
        style={{ height: '100%' }}
      />
    </ListBox>
  );
}
