// The virtualised ticket list (react-window v2). It holds ids only. The next page is
// asked for when the bottom is within 100 px (spec section 9): scrollHeight − scrollTop −
// clientHeight ≤ 100, read once per scroll event from the list element (no per-row
// layout reads), and checked again when the last loaded row gets rendered, which covers
// rows that do not fill the viewport and pages that arrive without a scroll. A loader
// is a placeholder row at the end.
import { useCallback, useMemo, useRef, type UIEvent } from 'react';
import { List, useListRef, type RowComponentProps } from 'react-window';
import { useTheme } from 'styled-components';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../../components/Splash';
import { ticketStore } from '../../machines/ticketStore';
import { TicketRow, type TicketRowActions } from './TicketRow';
import type { ID, TicketStatus } from '../../api/types';
import { EmptyState, ListFrame, LoaderRow } from './style';
import { nearBottom } from '../../app/scroll';

export const pendingRowExtra = 34;
// The infinite-scroll rule lives in app/scroll; re-exported for the list's callers.

interface RowData extends TicketRowActions {
  ids: ID[];
  selectedId: ID | null;
}

function Row({ index, style, ariaAttributes, ids, selectedId, ...actions }: RowComponentProps<RowData>) {
  if (index >= ids.length) {
    return (
      <LoaderRow style={style} {...ariaAttributes}>
        <Spinner $size={20} />
      </LoaderRow>
    );
  }
  const id = ids[index];
  return <TicketRow id={id} selected={id === selectedId} style={style} ariaAttributes={ariaAttributes} {...actions} />;
}

export interface TicketListProps extends TicketRowActions {
  ids: ID[];
  hasMore: boolean;
  loading: boolean;
  loadingMore: boolean;
  selectedId: ID | null;
  onNextPage: () => void;
  label: string;
  // The status every row of this list has, when the list is of one status (open,
  // pending, closed): rows then share one height, given to react-window as a number.
  // Without it (search) a row's height is looked up per row.
  rowStatus?: TicketStatus;
}

function rowHeightOf(status: TicketStatus | undefined, base: number): number {
  return status === 'pending' ? base + pendingRowExtra : base;
}

export function TicketList({ ids, hasMore, loading, loadingMore, selectedId, onNextPage, label, rowStatus, ...actions }: TicketListProps) {
  const theme = useTheme();
  const { t } = useTranslation();
  const base = theme.layout.ticketRowHeight;
  const rowCount = ids.length + (loadingMore ? 1 : 0);
  const rowProps = useMemo<RowData>(
    () => ({ ids, selectedId, ...actions }),
    // actions are stable callbacks from the manager
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [ids, selectedId, actions.onOpen, actions.onAccept, actions.onSpy, actions.onTransfer],
  );
  // A function height makes react-window rebuild its offsets from row 0 to the scroll
  // position whenever the row props change (every frame with a ticket update), so a
  // list of one status gives a number.
  const perRowHeight = useCallback(
    (index: number, data: RowData) => {
      const id = data.ids[index];
      return rowHeightOf(id === undefined ? undefined : ticketStore.get(id)?.status, base);
    },
    [base],
  );
  const rowHeight = rowStatus ? rowHeightOf(rowStatus, base) : perRowHeight;
  // Rows keyed by ticket id: a ticket that moves keeps its row (see TicketRow).
  const rowKey = useCallback((index: number, data: RowData) => data.ids[index] ?? 'loader', []);
  const listRef = useListRef(null);
  // The scroll handler is stable; it reads the latest props from here.
  const latest = useRef({ hasMore, loadingMore, onNextPage });
  latest.current = { hasMore, loadingMore, onNextPage };
  const maybeNextPage = useCallback((el: HTMLElement | null | undefined) => {
    const { hasMore: more, loadingMore: busy, onNextPage: next } = latest.current;
    if (el && more && !busy && nearBottom(el)) next();
  }, []);
  const onScroll = useCallback((e: UIEvent<HTMLDivElement>) => maybeNextPage(e.currentTarget), [maybeNextPage]);
  const onRowsRendered = (_visible: { startIndex: number; stopIndex: number }, all: { startIndex: number; stopIndex: number }) => {
    // Only near the end: one read of the list element, not one per row.
    if (all.stopIndex >= ids.length - 1) maybeNextPage(listRef.current?.element);
  };

  if (loading && ids.length === 0) {
    return (
      <ListFrame>
        <LoaderRow>
          <Spinner />
        </LoaderRow>
      </ListFrame>
    );
  }
  if (ids.length === 0) {
    return (
      <ListFrame>
        <EmptyState>
          <strong>{t('tickets.empty.title')}</strong>
          <span>{t('tickets.empty.message')}</span>
        </EmptyState>
      </ListFrame>
    );
  }
  return (
    <ListFrame>
      <List
        aria-label={label}
        rowComponent={Row}
        rowCount={rowCount}
        rowHeight={rowHeight}
        rowKey={rowKey}
        rowProps={rowProps}
        overscanCount={6}
        onRowsRendered={onRowsRendered}
        onScroll={onScroll}
        listRef={listRef}
        style={{ height: '100%' }}
      />
    </ListFrame>
  );
}
