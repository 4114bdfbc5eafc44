import { createActor } from 'xstate';
import { callErrors, callMachine, callSessionMs, type CallEmitted, type CallEvent, type CallInput } from './call.machine';
import { resources } from '../i18n/resources';

type StateName = 'idle' | 'ringing' | 'answering' | 'dialing' | 'talking' | 'held';

// start builds an actor and walks it into a state through the machine's own events.
function start(state: StateName, input: CallInput = { voipConnected: true }) {
  const actor = createActor(callMachine, { input });
  const emitted: CallEmitted[] = [];
  actor.on('*', (e) => emitted.push(e as CallEmitted));
  actor.start();
  const path: Record<StateName, CallEvent[]> = {
    idle: [],
    ringing: [{ type: 'call.incoming', callId: 'c1', kind: 'phone' }],
    answering: [{ type: 'call.incoming', callId: 'c1', kind: 'phone' }, { type: 'call.answer' }],
    dialing: [{ type: 'call.outgoing', callId: 'c1', kind: 'video' }],
    talking: [{ type: 'call.outgoing', callId: 'c1', kind: 'video' }, { type: 'call.confirmed' }],
    held: [{ type: 'call.outgoing', callId: 'c1', kind: 'video' }, { type: 'call.confirmed' }, { type: 'call.hold' }],
  };
  for (const e of path[state]) actor.send(e);
  emitted.length = 0;
  return { actor, emitted };
}

function where(actor: ReturnType<typeof start>['actor']): StateName {
  const s = actor.getSnapshot();
  for (const n of ['ringing', 'answering', 'dialing'] as const) if (s.matches({ busy: n })) return n;
  if (s.matches({ busy: { active: 'talking' } })) return 'talking';
  if (s.matches({ busy: { active: 'held' } })) return 'held';
  if (s.matches('idle')) return 'idle';
  throw new Error(`unexpected state ${JSON.stringify(s.value)}`);
}

// The eight phone engine events of spec section 4.
const events: Record<string, CallEvent> = {
  incoming: { type: 'call.incoming', callId: 'c2', kind: 'phone' },
  outgoing: { type: 'call.outgoing', callId: 'c2', kind: 'phone' },
  hold: { type: 'call.hold' },
  unhold: { type: 'call.unhold' },
  mute: { type: 'call.mute' },
  confirmed: { type: 'call.confirmed' },
  ended: { type: 'call.ended' },
  failed: { type: 'call.failed', reason: 'peer gone' },
};

const another = { type: 'refused', messageKey: callErrors.anotherActive };
const endedC1 = { type: 'ended', callId: 'c1', reason: 'hangup' };
const failedC1 = { type: 'failed', callId: 'c1', messageKey: callErrors.failed, reason: 'peer gone' };

// For each state and event: the state after it and what the machine emitted.
const table: Record<StateName, Record<keyof typeof events, [StateName, unknown[]]>> = {
  idle: {
    incoming: ['ringing', []],
    outgoing: ['dialing', []],
    hold: ['idle', []],
    unhold: ['idle', []],
    mute: ['idle', []],
    confirmed: ['idle', []],
    ended: ['idle', []],
    failed: ['idle', []],
  },
  ringing: {
    incoming: ['ringing', [another]],
    outgoing: ['ringing', [another]],
    hold: ['ringing', []],
    unhold: ['ringing', []],
    mute: ['ringing', []],
    confirmed: ['ringing', []], // not answered yet: the engine confirms after the answer
    ended: ['idle', [endedC1]],
    failed: ['idle', [failedC1]],
  },
  answering: {
    incoming: ['answering', [another]],
    outgoing: ['answering', [another]],
    hold: ['answering', []],
    unhold: ['answering', []],
    mute: ['answering', []],
    confirmed: ['talking', []],
    ended: ['idle', [endedC1]],
    failed: ['idle', [failedC1]],
  },
  dialing: {
    incoming: ['dialing', [another]],
    outgoing: ['dialing', [another]],
    hold: ['dialing', []],
    unhold: ['dialing', []],
    mute: ['dialing', []],
    confirmed: ['talking', []],
    ended: ['idle', [endedC1]],
    failed: ['idle', [failedC1]],
  },
  talking: {
    incoming: ['talking', [another]],
    outgoing: ['talking', [another]],
    hold: ['held', []],
    unhold: ['talking', []],
    mute: ['talking', []],
    confirmed: ['talking', []],
    ended: ['idle', [endedC1]],
    failed: ['idle', [failedC1]],
  },
  held: {
    incoming: ['held', [another]],
    outgoing: ['held', [another]],
    hold: ['held', []],
    unhold: ['talking', []],
    mute: ['held', []],
    confirmed: ['held', []],
    ended: ['idle', [endedC1]],
    failed: ['idle', [failedC1]],
  },
};

describe('call machine', () => {
  afterEach(() => vi.useRealTimers());

  for (const [state, row] of Object.entries(table) as [StateName, (typeof table)[StateName]][]) {
    for (const [name, [want, wantEmitted]] of Object.entries(row)) {
      it(`${state} + ${name} → ${want}`, () => {
        const { actor, emitted } = start(state);
        const before = actor.getSnapshot().context;
        actor.send(events[name]);
        expect(where(actor)).toBe(want);
        expect(emitted).toEqual(wantEmitted);
        const ctx = actor.getSnapshot().context;
        if (want === 'idle') {
          expect(ctx).toMatchObject({ callId: null, kind: null, direction: null, muted: false });
        } else if (state === 'idle') {
          expect(ctx.callId).toBe('c2');
          expect(ctx.direction).toBe(name);
        } else {
          // A refused or ignored event leaves the call as it was, but mute in a
          // connected call toggles the microphone.
          expect(ctx.callId).toBe('c1');
          expect(ctx.muted).toBe(name === 'mute' && (state === 'talking' || state === 'held') ? !before.muted : before.muted);
        }
      });
    }
  }

  it('mute toggles back and forth, across hold', () => {
    const { actor } = start('talking');
    actor.send({ type: 'call.mute' });
    actor.send({ type: 'call.hold' });
    expect(actor.getSnapshot().context.muted).toBe(true);
    actor.send({ type: 'call.unhold' });
    actor.send({ type: 'call.mute' });
    expect(actor.getSnapshot().context.muted).toBe(false);
  });

  it('refuses a phone call until the VOIP server is connected; a video call does not need it', () => {
    const { actor, emitted } = start('idle', { voipConnected: false });
    actor.send({ type: 'call.outgoing', callId: 'p', kind: 'phone' });
    expect(where(actor)).toBe('idle');
    expect(emitted).toEqual([{ type: 'refused', messageKey: callErrors.voipRequired }]);
    actor.send({ type: 'call.voip', connected: true });
    actor.send({ type: 'call.outgoing', callId: 'p', kind: 'phone' });
    expect(where(actor)).toBe('dialing');
    actor.send({ type: 'call.ended' });
    actor.send({ type: 'call.voip', connected: false });
    actor.send({ type: 'call.outgoing', callId: 'v', kind: 'video' });
    expect(where(actor)).toBe('dialing');
  });

  it('refuses to answer while the channel is busy, and answers once it is free', () => {
    const { actor, emitted } = start('ringing', { voipConnected: true, channelBusy: true });
    actor.send({ type: 'call.answer' });
    expect(where(actor)).toBe('ringing');
    expect(emitted).toEqual([{ type: 'refused', messageKey: callErrors.channelBusy }]);
    actor.send({ type: 'call.channel', busy: false });
    actor.send({ type: 'call.answer' });
    expect(where(actor)).toBe('answering');
  });

  it('ignores call.answer outside ringing', () => {
    for (const s of ['idle', 'answering', 'dialing', 'talking', 'held'] as const) {
      const { actor, emitted } = start(s);
      actor.send({ type: 'call.answer' });
      expect(where(actor)).toBe(s);
      expect(emitted).toEqual([]);
    }
  });

  it('ends a connected call after the 600 s session timer, held or not', () => {
    vi.useFakeTimers();
    for (const s of ['talking', 'held'] as const) {
      const { actor, emitted } = start(s);
      vi.advanceTimersByTime(callSessionMs - 1);
      expect(where(actor)).toBe(s);
      vi.advanceTimersByTime(1);
      expect(where(actor)).toBe('idle');
      expect(emitted).toEqual([{ type: 'ended', callId: 'c1', reason: 'timeout' }]);
    }
  });

  it('runs no session timer before the call is connected', () => {
    vi.useFakeTimers();
    const { actor } = start('dialing');
    vi.advanceTimersByTime(callSessionMs * 2);
    expect(where(actor)).toBe('dialing');
  });

  it('fails with the reason and message key it is given, from every state of a call', () => {
    for (const s of ['ringing', 'answering', 'dialing', 'talking', 'held'] as const) {
      const { actor, emitted } = start(s);
      actor.send({ type: 'call.failed', reason: 'gone', messageKey: callErrors.media });
      expect(where(actor)).toBe('idle');
      expect(emitted).toEqual([{ type: 'failed', callId: 'c1', messageKey: callErrors.media, reason: 'gone' }]);
    }
  });

  it('takes call.answer, call.voip and call.channel in every state without leaving it wrongly', () => {
    const after: Record<StateName, StateName> = { idle: 'idle', ringing: 'answering', answering: 'answering', dialing: 'dialing', talking: 'talking', held: 'held' };
    for (const s of Object.keys(after) as StateName[]) {
      const { actor } = start(s);
      actor.send({ type: 'call.voip', connected: false });
      actor.send({ type: 'call.channel', busy: false });
      expect(where(actor)).toBe(s);
      expect(actor.getSnapshot().context).toMatchObject({ voipConnected: false, channelBusy: false });
      actor.send({ type: 'call.answer' });
      expect(where(actor)).toBe(after[s]);
    }
  });

  it('has every message key in pt-BR, en and es, with the spec wording in pt-BR', () => {
    const pt = resources['pt-BR'].translation.call as { errors: Record<string, string> };
    expect(pt.errors.anotherActive).toBe('Já tem outra chamada ativa');
    expect(pt.errors.channelBusy).toBe('O canal atual está ocupado');
    expect(pt.errors.voipRequired).toBe('Por favor conecte ao servidor VOIP antes de fazer qualquer chamada');
    for (const lng of ['pt-BR', 'en', 'es']) {
      const tree = resources[lng].translation.call as { errors: Record<string, string> };
      for (const key of Object.values(callErrors)) expect(tree.errors[key.split('.').pop()!]).toBeTruthy();
    }
  });
});
