// useResource loads reference data (settings, tags, users, queues…) through the api
// layer and shares it between components by key. Lists with a life of their own
// (tickets, messages) go through machines instead.
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';

interface Entry<T> {
  data?: T;
  error?: unknown;
  promise?: Promise<void>;
  listeners: Set<() => void>;
}

const cache = new Map<string, Entry<unknown>>();

function entry<T>(key: string): Entry<T> {
  let e = cache.get(key) as Entry<T> | undefined;
  if (!e) {
    e = { listeners: new Set() };
    cache.set(key, e as Entry<unknown>);
  }
  return e;
}

function load<T>(key: string, loader: () => Promise<T>, force = false): void {
  const e = entry<T>(key);
  if (e.promise && !force) return;
  e.promise = loader().then(
    (data) => {
      e.data = data;
      e.error = undefined;
      e.listeners.forEach((l) => l());
    },
    (error: unknown) => {
      e.error = error;
      e.listeners.forEach((l) => l());
    },
  );
}

export function invalidateResource(key: string): void {
  cache.delete(key);
}

export function clearResources(): void {
  cache.clear();
}

export function useResource<T>(key: string | null, loader: () => Promise<T>) {
  const [, force] = useState(0);
  const subscribe = useCallback(
    (l: () => void) => {
      if (!key) return () => {};
      const e = entry<T>(key);
      e.listeners.add(l);
      return () => void e.listeners.delete(l);
    },
    [key],
  );
  const snapshot = useSyncExternalStore(subscribe, () => (key ? (cache.get(key) as Entry<T> | undefined) : undefined));
  useEffect(() => {
    if (key) load(key, loader);
    // loader is expected to be stable per key
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  const reload = useCallback(() => {
    if (!key) return;
    load(key, loader, true);
    force((n) => n + 1);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return {
    data: snapshot?.data,
    error: snapshot?.error,
    loading: !!key && snapshot?.data === undefined && snapshot?.error === undefined,
    reload,
  };
}
