import { useCallback, useSyncExternalStore } from 'react';
import { frameBatched } from '../../app/frame';
import { ticketStore } from '../../machines/ticketStore';
import type { ID, Ticket } from '../../api/types';

// A row reads its ticket from the store and re-renders only when that ticket changes,
// at most once per animation frame (app/frame.ts).
export function useTicket(id: ID): Ticket | undefined {
  const subscribe = useCallback((cb: () => void) => frameBatched((l) => ticketStore.subscribe(id, l))(cb), [id]);
  const get = useCallback(() => ticketStore.get(id), [id]);
  return useSyncExternalStore(subscribe, get, get);
}
