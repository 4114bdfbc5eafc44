// The virtualised ticket list (react-window v2). It holds ids only; the next page is
// asked for as soon as the last loaded row is rendered, overscan included (about six
// rows before it scrolls into view, or at once when the rows do not fill the viewport).
// It is driven by react-window's onRowsRendered, not by reading the scroll position in
// a scroll handler, which would force a layout on every scroll event. A loader is a
// placeholder row at the end.
import { useCallback, useMemo } from 'react';
import { List, type RowComponentProps } from 'react-window';
import { useTheme } from 'styled-components';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../../components/Splash';
import { ticketStore } from '../../machines/ticketStore';
import { TicketRow, type TicketRowActions } from './TicketRow';
import type { ID } from '../../api/types';
import { EmptyState, ListFrame, LoaderRow } from './style';

export const pendingRowExtra = 34;

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
}

export function TicketList({ ids, hasMore, loading, loadingMore, selectedId, onNextPage, label, ...actions }: TicketListProps) {
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
  const rowHeight = useCallback(
    (index: number, data: RowData) => {
      const id = data.ids[index];
      return id !== undefined && ticketStore.get(id)?.status === 'pending' ? base + pendingRowExtra : base;
    },
    [base],
  );
  // Rows keyed by ticket id: a ticket that moves keeps its row (see TicketRow).
  const rowKey = useCallback((index: number, data: RowData) => data.ids[index] ?? 'loader', []);
  const onRowsRendered = (_visible: { startIndex: number; stopIndex: number }, all: { startIndex: number; stopIndex: number }) => {
    if (hasMore && !loadingMore && all.stopIndex >= ids.length - 1) onNextPage();
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
        style={{ height: '100%' }}
      />
    </ListFrame>
  );
}
