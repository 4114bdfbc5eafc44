import { createActor, fromPromise } from 'xstate';
import { composerMachine, modeOf, type OutgoingMessage } from './composer.machine';
import type { Message } from '../api/types';

function build(opts: { enabled?: boolean; canSign?: boolean; fail?: boolean } = {}) {
  const sent: OutgoingMessage[] = [];
  const machine = composerMachine.provide({
    actors: {
      send: fromPromise(async ({ input }) => {
        sent.push(input);
        if (opts.fail) throw new Error('ERR_SENDING_WAPP_MSG');
        return undefined;
      }),
    },
  });
  const actor = createActor(machine, {
    input: { ticketId: 9, enabled: opts.enabled ?? true, canSign: opts.canSign ?? false },
  });
  actor.start();
  const idle = () => vi.waitFor(() => expect(actor.getSnapshot().hasTag('sending')).toBe(false));
  return { actor, sent, idle };
}

describe('composer machine', () => {
  it('modes are mutually exclusive and toggling the active one returns to normal', () => {
    const { actor } = build();
    const mode = () => modeOf(actor.getSnapshot());
    expect(mode()).toBe('normal');
    actor.send({ type: 'composer.toggleWhisper' });
    expect(mode()).toBe('whisper');
    actor.send({ type: 'composer.toggleAskAI' });
    expect(mode()).toBe('askAI');
    expect(actor.getSnapshot().hasTag('whisper')).toBe(false);
    actor.send({ type: 'composer.toggleTextToAudio' });
    expect(mode()).toBe('textToAudio');
    actor.send({ type: 'composer.toggleTranslation' });
    expect(mode()).toBe('translation');
    actor.send({ type: 'composer.toggleTranslation' });
    expect(mode()).toBe('normal');
  });

  it('signature is independent of the mode and needs the permission', () => {
    const denied = build({ canSign: false });
    denied.actor.send({ type: 'composer.toggleSignature' });
    expect(denied.actor.getSnapshot().hasTag('signed')).toBe(false);

    const { actor } = build({ canSign: true });
    actor.send({ type: 'composer.toggleSignature' });
    actor.send({ type: 'composer.toggleWhisper' });
    actor.send({ type: 'composer.toggleAskAI' });
    expect(actor.getSnapshot().hasTag('signed')).toBe(true);
    expect(modeOf(actor.getSnapshot())).toBe('askAI');
    actor.send({ type: 'composer.toggleSignature' });
    expect(actor.getSnapshot().hasTag('signed')).toBe(false);
    expect(modeOf(actor.getSnapshot())).toBe('askAI');
  });

  it('does not send blank text', () => {
    const { actor, sent } = build();
    actor.send({ type: 'composer.type', text: '   \n ' });
    actor.send({ type: 'composer.send' });
    expect(sent).toEqual([]);
  });

  it('does not send while disabled (ticket not open)', () => {
    const { actor, sent } = build({ enabled: false });
    actor.send({ type: 'composer.type', text: 'hello' });
    actor.send({ type: 'composer.send' });
    expect(sent).toEqual([]);
    actor.send({ type: 'composer.setEnabled', enabled: true });
    actor.send({ type: 'composer.send' });
    expect(sent).toHaveLength(1);
  });

  it('sends the trimmed text with mode, signature, language and quote, then clears', async () => {
    const { actor, sent, idle } = build({ canSign: true });
    const quoted = { id: 77, body: 'q', fromMe: false, ack: 0, ticketId: 9, createdAt: '' } as Message;
    actor.send({ type: 'composer.reply', message: quoted });
    actor.send({ type: 'composer.toggleTranslation' });
    actor.send({ type: 'composer.setLanguage', language: 'gb' });
    actor.send({ type: 'composer.toggleSignature' });
    actor.send({ type: 'composer.type', text: '  olá  ' });
    actor.send({ type: 'composer.send' });
    await idle();
    expect(sent).toEqual([
      { ticketId: 9, mode: 'translation', body: 'olá', sign: true, language: 'gb', quotedMsgId: 77 },
    ]);
    expect(actor.getSnapshot().context.text).toBe('');
    expect(actor.getSnapshot().context.quoted).toBeNull();
  });

  it('whisper mode sends as whisper with no language', async () => {
    const { actor, sent, idle } = build();
    actor.send({ type: 'composer.toggleWhisper' });
    actor.send({ type: 'composer.type', text: 'internal note' });
    actor.send({ type: 'composer.send' });
    await idle();
    expect(sent[0]).toMatchObject({ mode: 'whisper', language: null, sign: false });
  });

  it('keeps the text when sending fails and emits failed', async () => {
    const { actor, idle } = build({ fail: true });
    const failures: unknown[] = [];
    actor.on('failed', (e) => failures.push(e.error));
    actor.send({ type: 'composer.type', text: 'hello' });
    actor.send({ type: 'composer.send' });
    await idle();
    expect(actor.getSnapshot().context.text).toBe('hello');
    expect(failures).toHaveLength(1);
  });

  it('insert appends (emoji) and replace swaps the text (quick answer)', () => {
    const { actor } = build();
    actor.send({ type: 'composer.type', text: 'oi ' });
    actor.send({ type: 'composer.insert', text: '😀' });
    expect(actor.getSnapshot().context.text).toBe('oi 😀');
    actor.send({ type: 'composer.replace', text: 'Bom dia!' });
    expect(actor.getSnapshot().context.text).toBe('Bom dia!');
  });
});
