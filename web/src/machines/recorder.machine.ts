// Audio recorder (spec sections 2, 4 and 9):
//
//   idle ──recorder.start──▶ acquiring (microphone) ──▶ recording (mm:ss timer)
//   recording ──recorder.cancel──▶ idle (recording thrown away)
//   recording ──recorder.send──▶ stopping ──blob──▶ uploading ──▶ idle
//                                        └─ under 10000 bytes: discarded ──▶ idle
//   acquiring ──denied──▶ idle (emits failed: the shared error toast)
//
// The `recorder` actor owns the MediaRecorder and the microphone stream: it starts on
// entry, answers `stop` with recorder.data {blob}, and releases the microphone when
// stopped, whatever the path out.
import { assign, emit, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import type { ID } from '../api/types';

export const minAudioBytes = 10000;

export interface RecorderContext {
  ticketId: ID;
  elapsed: number; // seconds
  stream: MediaStream | null;
  blob: Blob | null;
}

export type RecorderEvent =
  | { type: 'recorder.start' }
  | { type: 'recorder.send' }
  | { type: 'recorder.cancel' }
  | { type: 'recorder.data'; blob: Blob };

export type RecorderEmitted =
  | { type: 'failed'; error: unknown }
  | { type: 'discarded'; size: number }
  | { type: 'sent' };

export type RecorderCommand = { type: 'stop' };

export function formatElapsed(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

export const recorderMachine = setup({
  types: {
    context: {} as RecorderContext,
    events: {} as RecorderEvent,
    input: {} as { ticketId: ID },
    emitted: {} as RecorderEmitted,
  },
  actors: {
    microphone: fromPromise<MediaStream>(async () => {
      throw new Error('recorder: provide actors.microphone');
    }),
    recorder: fromCallback<RecorderCommand, { stream: MediaStream }, RecorderEvent>(() => {
      throw new Error('recorder: provide actors.recorder');
    }),
    upload: fromPromise<unknown, { ticketId: ID; blob: Blob }>(async () => {
      throw new Error('recorder: provide actors.upload');
    }),
  },
  guards: {
    bigEnough: ({ event }) => event.type === 'recorder.data' && event.blob.size >= minAudioBytes,
  },
  actions: {
    resetTimer: assign({ elapsed: 0, blob: null, stream: null }),
    keepStream: assign({ stream: (_, params: { stream: MediaStream }) => params.stream }),
    dropStream: assign({ stream: null }),
    tick: assign({ elapsed: ({ context }) => context.elapsed + 1 }),
    keepBlob: assign({ blob: ({ event }) => (event.type === 'recorder.data' ? event.blob : null) }),
  },
  delays: { second: 1000 },
}).createMachine({
  id: 'recorder',
  context: ({ input }) => ({ ticketId: input.ticketId, elapsed: 0, stream: null, blob: null }),
  initial: 'idle',
  states: {
    idle: {
      on: { 'recorder.start': { target: 'acquiring', actions: 'resetTimer' } },
    },
    acquiring: {
      invoke: {
        id: 'microphone',
        src: 'microphone',
        onDone: {
          target: 'capturing',
          actions: { type: 'keepStream', params: ({ event }) => ({ stream: event.output }) },
        },
        onError: { target: 'idle', actions: emit(({ event }) => ({ type: 'failed' as const, error: event.error })) },
      },
      on: { 'recorder.cancel': 'idle' },
    },
    // The stream is held by the recorder child for as long as recording/stopping last.
    capturing: {
      exit: 'dropStream',
      invoke: {
        id: 'recorder',
        src: 'recorder',
        input: ({ context }) => ({ stream: context.stream! }),
      },
      initial: 'recording',
      on: { 'recorder.cancel': '#recorder.idle' },
      states: {
        recording: {
          tags: ['recording'],
          initial: 'ticking',
          states: {
            ticking: {
              after: { second: { target: 'ticking', reenter: true, actions: 'tick' } },
            },
          },
          on: { 'recorder.send': { target: 'stopping', actions: sendTo('recorder', { type: 'stop' }) } },
        },
        stopping: {
          tags: ['recording'],
          on: {
            'recorder.data': [
              { guard: 'bigEnough', target: '#recorder.uploading', actions: 'keepBlob' },
              {
                target: '#recorder.idle',
                actions: emit(({ event }) => ({ type: 'discarded' as const, size: event.blob.size })),
              },
            ],
          },
        },
      },
    },
    uploading: {
      tags: ['uploading'],
      invoke: {
        src: 'upload',
        input: ({ context }) => ({ ticketId: context.ticketId, blob: context.blob! }),
        onDone: { target: 'idle', actions: emit({ type: 'sent' as const }) },
        onError: { target: 'idle', actions: emit(({ event }) => ({ type: 'failed' as const, error: event.error })) },
      },
    },
  },
});
