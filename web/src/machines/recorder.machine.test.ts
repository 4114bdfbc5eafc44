import { createActor, fromCallback, fromPromise } from 'xstate';
import { formatElapsed, recorderMachine, type RecorderCommand, type RecorderEvent } from './recorder.machine';

function blobOf(size: number): Blob {
  return new Blob([new Uint8Array(size)], { type: 'audio/ogg' });
}

function build(opts: { size?: number; deny?: boolean } = {}) {
  const log = { started: 0, released: 0, uploads: [] as number[] };
  const stream = {} as MediaStream;
  const machine = recorderMachine.provide({
    actors: {
      microphone: fromPromise(async () => {
        if (opts.deny) throw new Error('NotAllowedError');
        return stream;
      }),
      recorder: fromCallback<RecorderCommand, { stream: MediaStream }, RecorderEvent>(({ input, receive, sendBack }) => {
        expect(input.stream).toBe(stream);
        log.started++;
        receive((cmd) => {
          if (cmd.type === 'stop') sendBack({ type: 'recorder.data', blob: blobOf(opts.size ?? 20000) });
        });
        return () => void log.released++;
      }),
      upload: fromPromise(async ({ input }) => {
        log.uploads.push(input.blob.size);
      }),
    },
  });
  const actor = createActor(machine, { input: { ticketId: 4 } });
  const emitted: string[] = [];
  actor.on('*', (e) => emitted.push(e.type));
  actor.start();
  return { actor, log, emitted };
}

describe('recorder machine', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const recording = async (actor: ReturnType<typeof build>['actor']) => {
    actor.send({ type: 'recorder.start' });
    await vi.waitFor(() => expect(actor.getSnapshot().hasTag('recording')).toBe(true));
  };

  it('formats the timer as mm:ss', () => {
    expect(formatElapsed(0)).toBe('00:00');
    expect(formatElapsed(65)).toBe('01:05');
    expect(formatElapsed(600)).toBe('10:00');
  });

  it('records with a ticking timer, then sends and uploads', async () => {
    const { actor, log, emitted } = build();
    await recording(actor);
    vi.advanceTimersByTime(3000);
    expect(actor.getSnapshot().context.elapsed).toBe(3);
    actor.send({ type: 'recorder.send' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('idle')).toBe(true));
    expect(log.uploads).toEqual([20000]);
    expect(log.released).toBe(1);
    expect(emitted).toContain('sent');
  });

  it('discards recordings under 10000 bytes', async () => {
    const { actor, log, emitted } = build({ size: 9999 });
    await recording(actor);
    actor.send({ type: 'recorder.send' });
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    expect(log.uploads).toEqual([]);
    expect(emitted).toContain('discarded');
  });

  it('keeps a recording of exactly 10000 bytes', async () => {
    const { actor, log } = build({ size: 10000 });
    await recording(actor);
    actor.send({ type: 'recorder.send' });
    await vi.waitFor(() => expect(log.uploads).toEqual([10000]));
  });

  it('cancel stops recording, releases the microphone and sends nothing', async () => {
    const { actor, log } = build();
    await recording(actor);
    actor.send({ type: 'recorder.cancel' });
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    expect(log.released).toBe(1);
    expect(log.uploads).toEqual([]);
    expect(actor.getSnapshot().context.stream).toBeNull();
  });

  it('a denied microphone goes back to idle and emits failed', async () => {
    const { actor, log, emitted } = build({ deny: true });
    actor.send({ type: 'recorder.start' });
    await vi.waitFor(() => expect(emitted).toContain('failed'));
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    expect(log.started).toBe(0);
  });

  it('restarts the timer on every recording', async () => {
    const { actor } = build({ size: 1 });
    await recording(actor);
    vi.advanceTimersByTime(2000);
    actor.send({ type: 'recorder.send' });
    await recording(actor);
    expect(actor.getSnapshot().context.elapsed).toBe(0);
  });
});
