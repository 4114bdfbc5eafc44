// The wait panel's data: one snapshot (GET /supervision/waitpanel), read again when the
// socket says tickets or presence changed. Changes arriving in a burst (a queue of
// customers writing at once) are folded into one read after a short settle, and a
// change during a read is remembered and read right after it.
//
//   loading ──done──▶ idle ──panel.changed──▶ settling ──300 ms──▶ loading
//      │  (changed while loading: dirty) ─done─▶ settling
//      └──error──▶ failed ──panel.changed | panel.retry──▶ loading
import { assign, fromPromise, setup } from 'xstate';
import { supervisionApi, type WaitPanel } from '../../api/supervision';

export interface WaitPanelContext {
  panel: WaitPanel | null;
  // clockOffset: server time minus this browser's, measured at each read, so the
  // waiting clocks count from the server's timestamps on the browser's clock.
  clockOffset: number;
  dirty: boolean;
  failed: boolean;
}

export type WaitPanelEvent = { type: 'panel.changed' } | { type: 'panel.retry' };

export const settleMs = 300;

export const waitPanelMachine = setup({
  types: { context: {} as WaitPanelContext, events: {} as WaitPanelEvent },
  actors: {
    fetchPanel: fromPromise<WaitPanel>(() => supervisionApi.waitPanel()),
  },
  actions: {
    markDirty: assign({ dirty: true }),
    store: assign(({ event }) => {
      const panel = (event as unknown as { output: WaitPanel }).output;
      const at = Date.parse(panel.at);
      return { panel, dirty: false, failed: false, clockOffset: Number.isFinite(at) ? at - Date.now() : 0 };
    }),
    fail: assign({ failed: true }),
  },
  guards: {
    isDirty: ({ context }) => context.dirty,
  },
}).createMachine({
  id: 'waitPanel',
  context: { panel: null, clockOffset: 0, dirty: false, failed: false },
  initial: 'loading',
  states: {
    loading: {
      tags: ['busy'],
      on: { 'panel.changed': { actions: 'markDirty' } },
      invoke: {
        src: 'fetchPanel',
        onDone: [
          { guard: 'isDirty', target: 'settling', actions: 'store' },
          { target: 'idle', actions: 'store' },
        ],
        onError: { target: 'failed', actions: 'fail' },
      },
    },
    idle: { on: { 'panel.changed': 'settling' } },
    settling: { after: { [settleMs]: 'loading' } },
    failed: { on: { 'panel.changed': 'loading', 'panel.retry': 'loading' } },
  },
});
