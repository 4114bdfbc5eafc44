// The dashboard's data: load the numbers for the filter, and load them again when the
// filter changes or the server says something changed (a ticket or message event on
// the socket). Changes arriving in a burst are gathered for `settle` ms into one
// reload, and a change during a load queues one more load after it.
//
//   loading ──done──▶ idle ──dashboard.changed──▶ settling ──after settle──▶ loading
//      │  ╰─error──▶ failed                                         ▲
//      ╰─ dashboard.changed: remember (dirty) → reload when done ───╯
import { assign, fromPromise, setup } from 'xstate';
import type { Dashboard, DashboardFilter } from '../../api/dashboard';

export interface DashboardContext {
  filter: DashboardFilter;
  data: Dashboard | null;
  error: unknown; // the failed load's error (null when the last load succeeded)
  dirty: boolean;
}

export type DashboardEvent = { type: 'dashboard.filter'; filter: DashboardFilter } | { type: 'dashboard.changed' };

export const dashboardMachine = setup({
  types: {
    context: {} as DashboardContext,
    events: {} as DashboardEvent,
    input: {} as { filter: DashboardFilter },
  },
  actors: {
    load: fromPromise<Dashboard, DashboardFilter>(async () => {
      throw new Error('dashboardMachine: provide a load actor');
    }),
  },
  delays: { settle: 400 },
  actions: {
    setFilter: assign({ filter: ({ event }) => (event.type === 'dashboard.filter' ? event.filter : ({} as DashboardFilter)) }),
    markDirty: assign({ dirty: true }),
  },
  guards: {
    isDirty: ({ context }) => context.dirty,
  },
}).createMachine({
  id: 'dashboard',
  context: ({ input }) => ({ filter: input.filter, data: null, error: null, dirty: false }),
  initial: 'loading',
  on: {
    'dashboard.filter': { target: '.loading', actions: 'setFilter', reenter: true },
  },
  states: {
    loading: {
      entry: assign({ dirty: false }),
      invoke: {
        src: 'load',
        input: ({ context }) => context.filter,
        onDone: [
          { guard: 'isDirty', target: 'settling', actions: assign({ data: ({ event }) => event.output, error: null }) },
          { target: 'idle', actions: assign({ data: ({ event }) => event.output, error: null }) },
        ],
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => event.error ?? new Error('ERR_INTERNAL') }),
        },
      },
      on: { 'dashboard.changed': { actions: 'markDirty' } },
      tags: ['busy'],
    },
    idle: { on: { 'dashboard.changed': 'settling' } },
    settling: { after: { settle: 'loading' } },
    failed: { on: { 'dashboard.changed': 'settling' } },
  },
});
