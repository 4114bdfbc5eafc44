// The scrolling of a virtualised conversation (react-window v2, keyed dynamic heights),
// shared by the ticket chat and the internal chat:
// - opens at the bottom and follows new rows while the reader is at the bottom;
// - scrolling within 50 px of the top asks for the older page;
// - when that page is prepended, or rows above the first visible one are measured
//   later, scrollTop moves by the height added, so what is on screen stays still.
// Row keys of messages start with "m-" (loaders and day separators do not).
import { useLayoutEffect, useRef, type UIEvent } from 'react';
import { useListRef } from 'react-window';
import { useKeyedRowHeight } from './useKeyedRowHeight';

export const olderPageThresholdPx = 50;
const bottomSlackPx = 40;

export function useStickyList(
  keys: readonly string[],
  defaultRowHeight: number,
  older: { hasMore: boolean; loading: boolean; load: () => void },
) {
  const listRef = useListRef(null);
  const firstVisible = useRef(0);
  const pendingShift = useRef(0);
  const stick = useRef(true);
  const prevKeys = useRef<readonly string[]>([]);
  const heights = useKeyedRowHeight(
    keys,
    defaultRowHeight,
    () => firstVisible.current,
    (delta) => {
      pendingShift.current += delta;
    },
  );

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
    if (el.scrollTop <= olderPageThresholdPx && older.hasMore && !older.loading) older.load();
  };
  const onRowsRendered = (visible: { startIndex: number }) => {
    firstVisible.current = visible.startIndex;
  };
  return { listRef, heights, onScroll, onRowsRendered };
}
