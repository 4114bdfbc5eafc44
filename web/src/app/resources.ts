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

export function invalidateResource(key: string): void {
  cache.delete(key);
}

export function clearResources(): void {
  cache.clear();
}

export function useResource<T>(key: string | null, loader: () => Promise<T>) {
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
    if (key) load(key, loader);
    // loader is expected to be stable per key
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
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
