// Starting a video call from the chat header (spec sections 2 and 9): this window's
// call machine refuses a second call while one is active ('Já tem outra chamada
// ativa'); the call window opens as an 800×600 popout (a blocked one is reported
// with a translated message); the server sends the customer's link through the
// ticket; the popout's closure is checked every 500 ms and ends the call here.
import { createActor } from 'xstate';
import { callErrors, callMachine } from '../../machines/call.machine';
import { videoCallsApi } from '../../api/endpoints';
import type { ID } from '../../api/types';

export const popoutSize = { width: 800, height: 600 };
export const closureCheckMs = 500;
export const popoutName = 'atende-video-call';

// The popout reports its call's progress to its opener on this BroadcastChannel, so
// the opener's machine follows it (talking, held, ended, failed).
export const progressChannel = 'atende-video-call';

export interface CallProgress {
  callId: string;
  step: string;
  outcome: 'ended' | 'failed' | null;
}

export interface LaunchDeps {
  open: (url: string, name: string, features: string) => Window | null;
  // Subscribes to the popouts' progress reports; returns nothing to undo (the
  // window's launcher lives as long as the window).
  listen?: (fn: (p: CallProgress) => void) => void;
  start: (ticketId: ID, text: string) => Promise<{ callId: string; token: string }>;
  setInterval: (fn: () => void, ms: number) => unknown;
  clearInterval: (id: unknown) => void;
}

const browserDeps: LaunchDeps = {
  open: (url, name, features) => window.open(url, name, features),
  start: (id, text) => videoCallsApi.start(id, text),
  setInterval: (fn, ms) => window.setInterval(fn, ms),
  clearInterval: (id) => window.clearInterval(id as number),
  listen: (fn) => {
    if (typeof BroadcastChannel === 'undefined') return;
    new BroadcastChannel(progressChannel).onmessage = (e: MessageEvent<CallProgress>) => fn(e.data);
  },
};

// reportProgress is the popout's side of progressChannel.
export function reportProgress(): (p: CallProgress) => void {
  if (typeof BroadcastChannel === 'undefined') return () => {};
  const ch = new BroadcastChannel(progressChannel);
  return (p) => ch.postMessage(p);
}

export type LaunchResult = { ok: true; callId: string } | { ok: false; messageKey?: string; error?: unknown };

// makeLauncher gives one window its call machine and the launch that uses it.
export function makeLauncher(deps: LaunchDeps = browserDeps) {
  const actor = createActor(callMachine, { input: { voipConnected: false, channelBusy: false } });
  actor.start();
  let refused: string | null = null;
  actor.on('refused', (e) => (refused = e.messageKey));
  let current: string | null = null; // the call id of the open popout
  deps.listen?.((p) => {
    if (!current || p.callId !== current) return;
    if (p.outcome === 'ended') actor.send({ type: 'call.ended' });
    else if (p.outcome === 'failed') actor.send({ type: 'call.failed' });
    else if (p.step === 'talking') actor.send(actor.getSnapshot().matches({ busy: { active: 'held' } }) ? { type: 'call.unhold' } : { type: 'call.confirmed' });
    else if (p.step === 'held') actor.send({ type: 'call.hold' });
  });

  async function launch(ticketId: ID, text: string): Promise<LaunchResult> {
    refused = null;
    actor.send({ type: 'call.outgoing', callId: `ticket-${ticketId}`, kind: 'video' });
    if (refused) return { ok: false, messageKey: refused };
    // Opened in the click's turn, before any await, so no popup blocker objects.
    const popup = deps.open('', popoutName, `popup,width=${popoutSize.width},height=${popoutSize.height}`);
    if (!popup) {
      actor.send({ type: 'call.failed', reason: 'popup blocked', messageKey: callErrors.popupBlocked });
      return { ok: false, messageKey: callErrors.popupBlocked };
    }
    let started: { callId: string; token: string };
    try {
      started = await deps.start(ticketId, text);
    } catch (error) {
      popup.close();
      actor.send({ type: 'call.failed', reason: 'start refused' });
      return { ok: false, error };
    }
    current = started.callId;
    popup.location.replace(`/video-call/${encodeURIComponent(started.callId)}#${started.token}`);
    const timer = deps.setInterval(() => {
      if (!popup.closed) return;
      deps.clearInterval(timer);
      actor.send({ type: 'call.ended' });
    }, closureCheckMs);
    return { ok: true, callId: started.callId };
  }

  return { actor, launch };
}

// The launcher of this window.
export const windowCalls = makeLauncher();
