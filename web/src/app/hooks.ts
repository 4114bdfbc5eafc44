import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';

export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (cb) => {
      const m = window.matchMedia(query);
      m.addEventListener('change', cb);
      return () => m.removeEventListener('change', cb);
    },
    () => window.matchMedia(query).matches,
    () => false,
  );
}

export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setV(value), ms);
    return () => clearTimeout(id);
  }, [value, ms]);
  return v;
}

// One shared ticker per period: every age badge re-renders on the same beat instead of
// owning a timer each (100k rows, spec: recomputed every 60 s).
interface Ticker {
  now: number;
  listeners: Set<() => void>;
  id?: ReturnType<typeof setInterval>;
}
const tickers = new Map<number, Ticker>();

function tickerOf(periodMs: number): Ticker {
  let t = tickers.get(periodMs);
  if (!t) {
    t = { now: Date.now(), listeners: new Set() };
    tickers.set(periodMs, t);
  }
  return t;
}

export function useNow(periodMs: number): number {
  const subscribe = useCallback(
    (cb: () => void) => {
      const ticker = tickerOf(periodMs);
      ticker.listeners.add(cb);
      if (!ticker.id) {
        ticker.now = Date.now();
        ticker.id = setInterval(() => {
          ticker.now = Date.now();
          ticker.listeners.forEach((l) => l());
        }, periodMs);
      }
      return () => {
        ticker.listeners.delete(cb);
        if (ticker.listeners.size === 0 && ticker.id) {
          clearInterval(ticker.id);
          ticker.id = undefined;
        }
      };
    },
    [periodMs],
  );
  const get = useCallback(() => tickerOf(periodMs).now, [periodMs]);
  return useSyncExternalStore(subscribe, get, get);
}
