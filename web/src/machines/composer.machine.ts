// Message composer (spec section 2, Chat screen).
//
// Three parallel regions:
//   mode      normal | whisper | askAI | textToAudio | translation — mutually exclusive:
//             toggling one turns any other off; toggling the active one goes back to normal.
//   signature off | on — independent of the mode (only for users with the sign permission).
//   send      idle | sending — composer.send needs text that is not blank and an enabled
//             composer (the ticket is open).
// The text, the quoted message and the translation language live in context.
// Sending goes through the `send` actor with what the mode implies; the text is cleared
// on success and kept on failure (`failed` is emitted with the error).
import { assign, emit, fromPromise, setup } from 'xstate';
import type { ID, Message } from '../api/types';

export type ComposerMode = 'normal' | 'whisper' | 'askAI' | 'textToAudio' | 'translation';

export const translationLanguages = ['cn', 'es', 'gb'] as const;
export type TranslationLanguage = (typeof translationLanguages)[number];

export interface OutgoingMessage {
  ticketId: ID;
  mode: ComposerMode;
  body: string;
  sign: boolean;
  language: TranslationLanguage | null;
  quotedMsgId: ID | null;
}

export interface ComposerContext {
  ticketId: ID;
  text: string;
  enabled: boolean;
  canSign: boolean;
  language: TranslationLanguage;
  quoted: Message | null;
  error: unknown;
}

export interface ComposerInput {
  ticketId: ID;
  enabled: boolean;
  canSign: boolean;
}

export type ComposerEvent =
  | { type: 'composer.type'; text: string }
  | { type: 'composer.insert'; text: string }
  | { type: 'composer.replace'; text: string }
  | { type: 'composer.toggleWhisper' }
  | { type: 'composer.toggleAskAI' }
  | { type: 'composer.toggleTextToAudio' }
  | { type: 'composer.toggleTranslation' }
  | { type: 'composer.setLanguage'; language: TranslationLanguage }
  | { type: 'composer.toggleSignature' }
  | { type: 'composer.reply'; message: Message }
  | { type: 'composer.cancelReply' }
  | { type: 'composer.setEnabled'; enabled: boolean }
  | { type: 'composer.send' };

export type ComposerEmitted = { type: 'sent'; message: OutgoingMessage } | { type: 'failed'; error: unknown };

function toggles(target: Exclude<ComposerMode, 'normal'>) {
  return { target: `#composer.mode.${target}` };
}

export const composerMachine = setup({
  types: {
    context: {} as ComposerContext,
    events: {} as ComposerEvent,
    input: {} as ComposerInput,
    emitted: {} as ComposerEmitted,
  },
  actors: {
    send: fromPromise<unknown, OutgoingMessage>(async () => {
      throw new Error('composer: provide actors.send');
    }),
  },
  guards: {
    canSend: ({ context }) => context.enabled && context.text.trim().length > 0,
    canSign: ({ context }) => context.canSign,
  },
  actions: {
    setText: assign({ text: (_, params: { text: string }) => params.text }),
    insertText: assign({ text: ({ context }, params: { text: string }) => context.text + params.text }),
    clearText: assign({ text: '', quoted: null }),
    setLanguage: assign({ language: (_, params: { language: TranslationLanguage }) => params.language }),
    setQuoted: assign({ quoted: (_, params: { message: Message | null }) => params.message }),
    setEnabled: assign({ enabled: (_, params: { enabled: boolean }) => params.enabled }),
    setError: assign({ error: (_, params: { error: unknown }) => params.error }),
  },
}).createMachine({
  id: 'composer',
  type: 'parallel',
  context: ({ input }) => ({
    ticketId: input.ticketId,
    enabled: input.enabled,
    canSign: input.canSign,
    text: '',
    language: 'es',
    quoted: null,
    error: null,
  }),
  on: {
    'composer.type': { actions: { type: 'setText', params: ({ event }) => ({ text: event.text }) } },
    'composer.replace': { actions: { type: 'setText', params: ({ event }) => ({ text: event.text }) } },
    'composer.insert': { actions: { type: 'insertText', params: ({ event }) => ({ text: event.text }) } },
    'composer.reply': { actions: { type: 'setQuoted', params: ({ event }) => ({ message: event.message }) } },
    'composer.cancelReply': { actions: { type: 'setQuoted', params: { message: null } } },
    'composer.setEnabled': { actions: { type: 'setEnabled', params: ({ event }) => ({ enabled: event.enabled }) } },
    'composer.setLanguage': {
      actions: { type: 'setLanguage', params: ({ event }) => ({ language: event.language }) },
    },
  },
  states: {
    mode: {
      initial: 'normal',
      states: {
        normal: {
          on: {
            'composer.toggleWhisper': toggles('whisper'),
            'composer.toggleAskAI': toggles('askAI'),
            'composer.toggleTextToAudio': toggles('textToAudio'),
            'composer.toggleTranslation': toggles('translation'),
          },
        },
        whisper: {
          tags: ['whisper'],
          on: {
            'composer.toggleWhisper': 'normal',
            'composer.toggleAskAI': toggles('askAI'),
            'composer.toggleTextToAudio': toggles('textToAudio'),
            'composer.toggleTranslation': toggles('translation'),
          },
        },
        askAI: {
          tags: ['askAI'],
          on: {
            'composer.toggleAskAI': 'normal',
            'composer.toggleWhisper': toggles('whisper'),
            'composer.toggleTextToAudio': toggles('textToAudio'),
            'composer.toggleTranslation': toggles('translation'),
          },
        },
        textToAudio: {
          tags: ['textToAudio'],
          on: {
            'composer.toggleTextToAudio': 'normal',
            'composer.toggleWhisper': toggles('whisper'),
            'composer.toggleAskAI': toggles('askAI'),
            'composer.toggleTranslation': toggles('translation'),
          },
        },
        translation: {
          tags: ['translation'],
          on: {
            'composer.toggleTranslation': 'normal',
            'composer.toggleWhisper': toggles('whisper'),
            'composer.toggleAskAI': toggles('askAI'),
            'composer.toggleTextToAudio': toggles('textToAudio'),
          },
        },
      },
    },
    signature: {
      initial: 'off',
      states: {
        off: { on: { 'composer.toggleSignature': { guard: 'canSign', target: 'on' } } },
        on: { tags: ['signed'], on: { 'composer.toggleSignature': 'off' } },
      },
    },
    send: {
      initial: 'idle',
      states: {
        idle: {
          on: { 'composer.send': { guard: 'canSend', target: 'sending' } },
        },
        sending: {
          tags: ['sending'],
          invoke: {
            src: 'send',
            input: ({ context, self }) => outgoing(context, self.getSnapshot()),
            onDone: {
              target: 'idle',
              actions: [
                emit(({ context, self }) => ({ type: 'sent' as const, message: outgoing(context, self.getSnapshot()) })),
                'clearText',
              ],
            },
            onError: {
              target: 'idle',
              actions: [
                { type: 'setError', params: ({ event }) => ({ error: event.error }) },
                emit(({ event }) => ({ type: 'failed' as const, error: event.error })),
              ],
            },
          },
        },
      },
    },
  },
});

interface ModeSnapshot {
  value: unknown;
}

export function modeOf(snapshot: ModeSnapshot): ComposerMode {
  const v = snapshot.value as { mode?: ComposerMode };
  return v.mode ?? 'normal';
}

function signedOf(snapshot: ModeSnapshot): boolean {
  const v = snapshot.value as { signature?: string };
  return v.signature === 'on';
}

function outgoing(context: ComposerContext, snapshot: ModeSnapshot): OutgoingMessage {
  const mode = modeOf(snapshot);
  return {
    ticketId: context.ticketId,
    mode,
    body: context.text.trim(),
    sign: signedOf(snapshot),
    language: mode === 'translation' ? context.language : null,
    quotedMsgId: context.quoted?.id ?? null,
  };
}
