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

export interface LaunchDeps {
  open: (url: string, name: string, features: string) => Window | null;
  start: (ticketId: ID, text: string) => Promise<{ callId: string; token: string }>;
  setInterval: (fn: () => void, ms: number) => unknown;
  clearInterval: (id: unknown) => void;
}

const browserDeps: LaunchDeps = {
  open: (url, name, features) => window.open(url, name, features),
  start: (id, text) => videoCallsApi.start(id, text),
  setInterval: (fn, ms) => window.setInterval(fn, ms),
  clearInterval: (id) => window.clearInterval(id as number),
};

export type LaunchResult = { ok: true; callId: string } | { ok: false; messageKey?: string; error?: unknown };

// makeLauncher gives one window its call machine and the launch that uses it.
export function makeLauncher(deps: LaunchDeps = browserDeps) {
  const actor = createActor(callMachine, { input: { voipConnected: false, channelBusy: false } });
  actor.start();
  let refused: string | null = null;
  actor.on('refused', (e) => (refused = e.messageKey));

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
