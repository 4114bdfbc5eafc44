// One call, phone or video (spec sections 4, 5 and 9). The phone engine's call events
// (incoming, outgoing, hold, unhold, mute, confirmed, ended, failed) drive it; the UI
// adds call.answer, and reports the VOIP server (call.voip) and the channel
// (call.channel) as they change.
//
//   busy (a call under way) holds ringing, answering, dialing and active:
//   idle ──call.incoming──▶ ringing ──call.answer──▶ answering ──call.confirmed──▶ active
//   idle ──call.outgoing──▶ dialing ──call.confirmed──▶ active
//   active: talking ⇄ held (call.hold / call.unhold); call.mute toggles the microphone
//   ringing | answering | dialing | active ──call.ended──▶ idle (emits ended)
//   ringing | answering | dialing | active ──call.failed──▶ idle (emits failed)
//   active ──600 s session timer──▶ idle (emits ended, reason timeout)
//
// Rules of section 5, each refused with an emitted `refused` and its i18n key, the
// machine staying where it is:
//   - a phone call needs the VOIP server first (call.outgoing of kind phone while
//     the VOIP server is not connected): call.errors.voipRequired;
//   - only one active call (call.incoming or call.outgoing while a call is under
//     way): call.errors.anotherActive;
//   - answering is refused while the channel is busy: call.errors.channelBusy.
// Events that mean nothing in a state (hold while ringing, mute while idle…) are
// ignored. call.failed may carry the i18n key of why (a peer that vanished, a camera
// that cannot be opened…); call.errors.failed otherwise.
//
// The video call drives it (features/videoCall/callSession.ts): the attendant's popout
// sends call.outgoing, the customer's call page call.incoming then call.answer; both
// send call.confirmed when WebRTC connects, call.hold/unhold for their own hold button
// and the other party's, call.ended for a hang-up on either side, call.failed when the
// peer vanished or the media failed. The chat header keeps one machine per window for
// the rule 'Já tem outra chamada ativa' while a popout is open.
import { assign, emit, setup } from 'xstate';

export type CallKind = 'phone' | 'video';
export type CallDirection = 'incoming' | 'outgoing';

// The call session timer (spec section 9): a connected call ends after 600 s.
export const callSessionMs = 600_000;

export const callErrors = {
  voipRequired: 'call.errors.voipRequired',
  anotherActive: 'call.errors.anotherActive',
  channelBusy: 'call.errors.channelBusy',
  failed: 'call.errors.failed',
  // The video call's own failures.
  media: 'call.errors.media',
  replaced: 'call.errors.replaced',
  popupBlocked: 'call.errors.popupBlocked',
  link: 'call.errors.link',
} as const;

export interface CallContext {
  callId: string | null;
  kind: CallKind | null;
  direction: CallDirection | null;
  voipConnected: boolean;
  channelBusy: boolean;
  muted: boolean;
}

export interface CallInput {
  voipConnected?: boolean;
  channelBusy?: boolean;
}

export type CallEvent =
  | { type: 'call.incoming'; callId: string; kind: CallKind }
  | { type: 'call.outgoing'; callId: string; kind: CallKind }
  | { type: 'call.answer' }
  | { type: 'call.confirmed' }
  | { type: 'call.hold' }
  | { type: 'call.unhold' }
  | { type: 'call.mute' }
  | { type: 'call.ended' }
  | { type: 'call.failed'; reason?: string; messageKey?: string }
  | { type: 'call.voip'; connected: boolean }
  | { type: 'call.channel'; busy: boolean };

export type CallEmitted =
  | { type: 'refused'; messageKey: string }
  | { type: 'ended'; callId: string | null; reason: 'hangup' | 'timeout' }
  | { type: 'failed'; callId: string | null; messageKey: string; reason?: string };

const cleared = { callId: null, kind: null, direction: null, muted: false } as const;

export const callMachine = setup({
  types: {
    context: {} as CallContext,
    events: {} as CallEvent,
    input: {} as CallInput,
    emitted: {} as CallEmitted,
  },
  guards: {
    needsVoip: ({ context, event }) => event.type === 'call.outgoing' && event.kind === 'phone' && !context.voipConnected,
    channelBusy: ({ context }) => context.channelBusy,
  },
  actions: {
    start: assign(({ event }) => {
      if (event.type !== 'call.incoming' && event.type !== 'call.outgoing') return {};
      return { callId: event.callId, kind: event.kind, direction: event.type === 'call.incoming' ? ('incoming' as const) : ('outgoing' as const), muted: false };
    }),
    clear: assign(cleared),
    refuseAnother: emit({ type: 'refused', messageKey: callErrors.anotherActive }),
    emitEnded: emit(({ context }) => ({ type: 'ended', callId: context.callId, reason: 'hangup' }) as const),
    emitTimeout: emit(({ context }) => ({ type: 'ended', callId: context.callId, reason: 'timeout' }) as const),
    emitFailed: emit(({ context, event }) => ({
      type: 'failed',
      callId: context.callId,
      messageKey: (event.type === 'call.failed' && event.messageKey) || callErrors.failed,
      reason: event.type === 'call.failed' ? event.reason : undefined,
    }) as const),
  },
}).createMachine({
  id: 'call',
  initial: 'idle',
  context: ({ input }) => ({ ...cleared, voipConnected: input?.voipConnected ?? false, channelBusy: input?.channelBusy ?? false }),
  on: {
    'call.voip': { actions: assign({ voipConnected: ({ event }) => event.connected }) },
    'call.channel': { actions: assign({ channelBusy: ({ event }) => event.busy }) },
  },
  states: {
    idle: {
      on: {
        'call.incoming': { target: 'busy.ringing', actions: 'start' },
        'call.outgoing': [
          { guard: 'needsVoip', actions: emit({ type: 'refused', messageKey: callErrors.voipRequired }) },
          { target: 'busy.dialing', actions: 'start' },
        ],
      },
    },
    // A call under way: a second one is refused, and it ends or fails from any step.
    busy: {
      on: {
        'call.incoming': { actions: 'refuseAnother' },
        'call.outgoing': { actions: 'refuseAnother' },
        'call.ended': { target: 'idle', actions: ['emitEnded', 'clear'] },
        'call.failed': { target: 'idle', actions: ['emitFailed', 'clear'] },
      },
      initial: 'ringing',
      states: {
        ringing: {
          on: {
            'call.answer': [
              { guard: 'channelBusy', actions: emit({ type: 'refused', messageKey: callErrors.channelBusy }) },
              { target: 'answering' },
            ],
          },
        },
        answering: { on: { 'call.confirmed': 'active' } },
        dialing: { on: { 'call.confirmed': 'active' } },
        active: {
          initial: 'talking',
          after: { [callSessionMs]: { target: '#call.idle', actions: ['emitTimeout', 'clear'] } },
          on: { 'call.mute': { actions: assign({ muted: ({ context }) => !context.muted }) } },
          states: {
            talking: { on: { 'call.hold': 'held' } },
            held: { on: { 'call.unhold': 'talking' } },
          },
        },
      },
    },
  },
});
