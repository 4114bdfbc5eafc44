// useResource loads reference data (settings, tags, users, queues…) through the api
// layer and shares it between components by key. Lists with a life of their own
// (tickets, messages) go through machines instead.
import { useCallback, useEffect, useSyncExternalStore } from 'react';

// One key's state. `snap` is replaced (never mutated) on every change, so that
// useSyncExternalStore sees a new snapshot and re-renders its readers.
interface Snapshot<T> {
  data?: T;
  error?: unknown;
}

interface Entry<T> {
  snap: Snapshot<T>;
  promise?: Promise<void>;
  listeners: Set<() => void>;
  // State kept beside the data and dropped with it (resourceSide).
  side?: unknown;
}

const cache = new Map<string, Entry<unknown>>();
const none: Snapshot<never> = {};

function entry<T>(key: string): Entry<T> {
  let e = cache.get(key) as Entry<T> | undefined;
  if (!e) {
    e = { snap: none, listeners: new Set() };
    cache.set(key, e as Entry<unknown>);
  }
  return e;
}

function load<T>(key: string, loader: () => Promise<T>, force = false): void {
  const e = entry<T>(key);
  if (e.promise && !force) return;
  const settle = (snap: Snapshot<T>) => {
    // A newer load (or an invalidation) owns the entry now.
    if (cache.get(key) !== e || e.promise !== p) return;
    e.snap = snap;
    e.listeners.forEach((l) => l());
  };
  const p: Promise<void> = loader().then(
    (data) => settle({ data }),
    (error: unknown) => settle({ error }),
  );
  e.promise = p;
}

// mutateResource replaces a loaded key's data with fn(data), e.g. a row from a realtime
// event, and re-renders its readers. A key not loaded yet is left alone: its load
// answers with the server's state.
export function mutateResource<T>(key: string, fn: (data: T) => T): void {
  const e = cache.get(key) as Entry<T> | undefined;
  if (!e || e.snap.data === undefined) return;
  const data = fn(e.snap.data);
  if (data === e.snap.data) return;
  e.snap = { data };
  e.listeners.forEach((l) => l());
}

// resourceSide is state kept beside a key's data (made by init on first use), shared
// by its readers and dropped with the key by invalidateResource and clearResources.
export function resourceSide<S>(key: string, init: () => S): S {
  const e = entry<unknown>(key);
  if (e.side === undefined) e.side = init();
  return e.side as S;
}

export function invalidateResource(key: string): void {
  cache.delete(key);
}

export function clearResources(): void {
  cache.clear();
}

// useResource reads key, loading it on first use; with lazy it only reads what is there
// (loaded by another reader, or by reload()).
export function useResource<T>(key: string | null, loader: () => Promise<T>, lazy = false) {
  const subscribe = useCallback(
    (l: () => void) => {
      if (!key) return () => {};
      const e = entry<T>(key);
      e.listeners.add(l);
      return () => void e.listeners.delete(l);
    },
    [key],
  );
  const snapshot = useSyncExternalStore(subscribe, () => (key ? ((cache.get(key)?.snap as Snapshot<T> | undefined) ?? none) : none));
  useEffect(() => {
    if (key && !lazy) load(key, loader);
    // loader is expected to be stable per key
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, lazy]);
  const reload = useCallback(() => {
    if (key) load(key, loader, true);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return {
    data: snapshot.data,
    error: snapshot.error,
    loading: !!key && snapshot.data === undefined && snapshot.error === undefined,
    reload,
  };
}
