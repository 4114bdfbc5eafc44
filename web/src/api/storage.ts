// Local storage keys of spec section 3, in one place. The app keeps `token` in memory
// instead (memoryTokenStore below; docs/security.md, "Sessions").
export const storageKeys = {
  token: 'token',
  userId: 'userId',
  companyId: 'companyId',
  allHistory: 'allHistory',
  clientTimestampDiff: 'clientTimestampDiff',
  showAllTickets: 'showAllTickets',
} as const;

export type StorageKey = (typeof storageKeys)[keyof typeof storageKeys];

// KeyValueStore is the part of window.localStorage the api layer uses; tests pass a Map.
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function memoryStore(): KeyValueStore {
  const m = new Map<string, string>();
  return {
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, v),
    removeItem: (k) => void m.delete(k),
  };
}

// memoryTokenStore keeps the access token in memory only, never in base: a script
// injected into the page cannot read it from localStorage, and it is gone when the
// tab closes (the httpOnly refresh cookie restores it on reload). Every other key
// goes to base. A token an earlier version left in base is removed.
export function memoryTokenStore(base: KeyValueStore): KeyValueStore {
  let token: string | null = null;
  base.removeItem(storageKeys.token);
  return {
    getItem: (k) => (k === storageKeys.token ? token : base.getItem(k)),
    setItem: (k, v) => {
      if (k === storageKeys.token) token = v;
      else base.setItem(k, v);
    },
    removeItem: (k) => {
      if (k === storageKeys.token) token = null;
      else base.removeItem(k);
    },
  };
}

export function browserStore(): KeyValueStore {
  try {
    if (typeof window !== 'undefined' && window.localStorage) return window.localStorage;
  } catch {
    // Storage can throw in private modes; fall through.
  }
  return memoryStore();
}
