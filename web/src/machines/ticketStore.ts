// TicketStore holds every ticket the app has seen, by id. Lists (ticketList.machine)
// hold ids only; a row looks its ticket up here and re-renders alone when that ticket
// changes (useTicket). It is mutated in place on purpose: with 100k tickets and 100
// updates/s, copying a map per update would cost more than the rendering.
import type { Contact, ID, Ticket } from '../api/types';

type Listener = () => void;

export class TicketStore {
  private readonly tickets = new Map<ID, Ticket>();
  private readonly listeners = new Map<ID, Set<Listener>>();

  get(id: ID): Ticket | undefined {
    return this.tickets.get(id);
  }

  // upsert keeps parts a partial payload leaves out (a socket event may carry a ticket
  // without its contact).
  // Every list applies the same socket event, so an upsert that changes nothing is common:
  // it costs a shallow compare and notifies nobody.
  upsert(t: Ticket): Ticket {
    const old = this.tickets.get(t.id);
    if (old && sameFields(old, t)) return old;
    const next: Ticket = old ? { ...old, ...stripUndefined(t) } : t;
    if (old && old.contact && !t.contact) next.contact = old.contact;
    this.tickets.set(t.id, next);
    this.notify(t.id);
    return next;
  }

  upsertMany(ts: readonly Ticket[]): void {
    for (const t of ts) this.upsert(t);
  }

  patch(id: ID, patch: Partial<Ticket>): Ticket | undefined {
    const old = this.tickets.get(id);
    if (!old) return undefined;
    const next = { ...old, ...patch };
    this.tickets.set(id, next);
    this.notify(id);
    return next;
  }

  patchContact(contact: Contact): void {
    for (const [id, t] of this.tickets) {
      if (t.contactId === contact.id || t.contact?.id === contact.id) {
        this.tickets.set(id, { ...t, contact: { ...t.contact, ...contact } });
        this.notify(id);
      }
    }
  }

  remove(id: ID): void {
    if (this.tickets.delete(id)) this.notify(id);
  }

  subscribe(id: ID, l: Listener): () => void {
    let set = this.listeners.get(id);
    if (!set) {
      set = new Set();
      this.listeners.set(id, set);
    }
    set.add(l);
    return () => {
      set!.delete(l);
      if (set!.size === 0) this.listeners.delete(id);
    };
  }

  private notify(id: ID): void {
    const set = this.listeners.get(id);
    if (set) for (const l of [...set]) l();
  }
}

function sameFields(old: Ticket, t: Ticket): boolean {
  for (const [k, v] of Object.entries(t)) {
    if (v !== undefined && (old as unknown as Record<string, unknown>)[k] !== v) return false;
  }
  return true;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}

export const ticketStore = new TicketStore();
