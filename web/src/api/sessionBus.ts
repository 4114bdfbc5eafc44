// sessionBus tells the app what the REST client learned about the session on its own:
// a 401 signed the user out, or a 403 retry refreshed the token.
import type { AuthResponse } from './types';

export type SessionBusEvent = { type: 'signedOut' } | { type: 'refreshed'; auth: AuthResponse };

type Listener = (e: SessionBusEvent) => void;

const listeners = new Set<Listener>();

export const sessionBus = {
  emit(e: SessionBusEvent): void {
    for (const l of [...listeners]) l(e);
  },
  subscribe(l: Listener): () => void {
    listeners.add(l);
    return () => void listeners.delete(l);
  },
};
