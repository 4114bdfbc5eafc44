// The client map's data: the tile server and every located contact, read page by page
// (GET /maps/contacts, 2,000 a page, at most maxPages pages), then kept current by the
// socket's contact events (a contact whose location is set, changed or removed moves,
// appears or leaves; its last ticket is kept).
//
//   loading ──done──▶ ready (contact.changed / contact.removed update in place)
//      └──error──▶ failed ──map.retry──▶ loading
import { assign, fromPromise, setup } from 'xstate';
import { mapsApi, type InvalidLocation, type MapConfig, type MapContact } from '../../api/supervision';
import type { Contact, ID } from '../../api/types';
import { contactLocation } from './location';

export const maxPages = 25; // 50,000 contacts

export interface ClientMapData {
  config: MapConfig;
  contacts: MapContact[];
  invalid: InvalidLocation[];
  invalidCount: number;
}

export async function loadClientMap(): Promise<ClientMapData> {
  const config = await mapsApi.config();
  const out: ClientMapData = { config, contacts: [], invalid: [], invalidCount: 0 };
  let after = 0;
  for (let i = 0; i < maxPages; i++) {
    const page = await mapsApi.contacts(after);
    out.contacts.push(...page.contacts);
    out.invalid.push(...page.invalid);
    out.invalidCount += page.invalidCount;
    if (!page.hasMore || !page.nextCursor) break;
    after = page.nextCursor;
  }
  return out;
}

// applyContact: the map's list after a contact was created or updated.
export function applyContact(list: MapContact[], c: Contact): MapContact[] {
  const loc = contactLocation(c.extraInfo);
  const prev = list.find((m) => m.contactId === c.id);
  const rest = list.filter((m) => m.contactId !== c.id);
  if (!loc?.point) return prev ? rest : list;
  return [...rest, { contactId: c.id, name: c.name, number: c.number, value: loc.value, ticketId: prev?.ticketId ?? 0, ...loc.point }];
}

export type ClientMapEvent = { type: 'contact.changed'; contact: Contact } | { type: 'contact.removed'; contactId: ID } | { type: 'map.retry' };

export const clientMapMachine = setup({
  types: { context: {} as { data: ClientMapData | null }, events: {} as ClientMapEvent },
  actors: { load: fromPromise<ClientMapData>(() => loadClientMap()) },
  actions: {
    store: assign(({ event }) => ({ data: (event as unknown as { output: ClientMapData }).output })),
    change: assign(({ context, event }) => {
      if (!context.data || event.type !== 'contact.changed') return {};
      return { data: { ...context.data, contacts: applyContact(context.data.contacts, event.contact) } };
    }),
    remove: assign(({ context, event }) => {
      if (!context.data || event.type !== 'contact.removed') return {};
      return { data: { ...context.data, contacts: context.data.contacts.filter((m) => m.contactId !== event.contactId) } };
    }),
  },
}).createMachine({
  id: 'clientMap',
  context: { data: null },
  initial: 'loading',
  states: {
    loading: { invoke: { src: 'load', onDone: { target: 'ready', actions: 'store' }, onError: 'failed' } },
    ready: { on: { 'contact.changed': { actions: 'change' }, 'contact.removed': { actions: 'remove' } } },
    failed: { on: { 'map.retry': 'loading' } },
  },
});
