// Dynamic row heights for react-window v2 keyed by row identity instead of index, so
// prepending older messages does not shift measured heights onto the wrong rows. It
// implements react-window's DynamicRowHeight contract (getRowHeight, setRowHeight,
// getAverageRowHeight, observeRowElements) and reports, through onResizeAbove, how much
// rows above the first visible one grew, so the list can keep what is on screen still.
import { useCallback, useMemo, useRef, useState } from 'react';
import type { DynamicRowHeight } from 'react-window';

export function useKeyedRowHeight(
  keys: readonly string[],
  defaultRowHeight: number,
  firstVisible: () => number,
  onResizeAbove: (delta: number) => void,
): DynamicRowHeight & { heightOfKey: (key: string) => number } {
  const heights = useRef(new Map<string, number>());
  const keysRef = useRef(keys);
  keysRef.current = keys;
  const [version, setVersion] = useState(0);
  const observer = useRef<ResizeObserver | null>(null);
  const cb = useRef({ firstVisible, onResizeAbove });
  cb.current = { firstVisible, onResizeAbove };

  const average = useCallback(() => {
    const m = heights.current;
    if (m.size === 0) return defaultRowHeight;
    let sum = 0;
    for (const h of m.values()) sum += h;
    return sum / m.size;
  }, [defaultRowHeight]);

  const setRowHeight = useCallback(
    (index: number, size: number) => {
      const key = keysRef.current[index];
      if (key === undefined || size <= 0) return;
      const old = heights.current.get(key);
      if (old === size) return;
      const before = old ?? average();
      heights.current.set(key, size);
      if (index < cb.current.firstVisible()) cb.current.onResizeAbove(size - before);
      setVersion((v) => v + 1);
    },
    [average],
  );

  const observeRowElements = useCallback(
    (elements: Element[] | NodeListOf<Element>) => {
      if (typeof ResizeObserver === 'undefined') return () => {};
      if (!observer.current) {
        observer.current = new ResizeObserver((entries) => {
          for (const e of entries) {
            const raw = e.target.getAttribute('data-react-window-index');
            const pos = e.target.getAttribute('aria-posinset');
            const index = raw !== null ? Number(raw) : pos !== null ? Number(pos) - 1 : NaN;
            const size = e.borderBoxSize?.[0]?.blockSize ?? (e.target as HTMLElement).getBoundingClientRect().height;
            if (Number.isFinite(index)) setRowHeight(index, size);
          }
        });
      }
      const obs = observer.current;
      const list = Array.from(elements);
      list.forEach((el) => obs.observe(el));
      return () => list.forEach((el) => obs.unobserve(el));
    },
    [setRowHeight],
  );

  return useMemo(
    () => ({
      getAverageRowHeight: average,
      getRowHeight: (index: number) => {
        const key = keysRef.current[index];
        return key === undefined ? undefined : heights.current.get(key);
      },
      setRowHeight,
      observeRowElements,
      heightOfKey: (key: string) => heights.current.get(key) ?? average(),
    }),
    // version and keys invalidate react-window's offset cache
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [version, keys, average, setRowHeight, observeRowElements],
  );
}
