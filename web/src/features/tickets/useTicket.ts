import { useCallback, useSyncExternalStore } from 'react';
import { ticketStore } from '../../machines/ticketStore';
import type { ID, Ticket } from '../../api/types';

// A row reads its ticket from the store and re-renders only when that ticket changes.
export function useTicket(id: ID): Ticket | undefined {
  const subscribe = useCallback((cb: () => void) => ticketStore.subscribe(id, cb), [id]);
  const get = useCallback(() => ticketStore.get(id), [id]);
  return useSyncExternalStore(subscribe, get, get);
}
