import { describe, expect, it, vi } from 'vitest';
import { callErrors } from '../../machines/call.machine';
import type { CallFrame, CallSocketHandlers } from '../../api/callSocket';
import { CallSession, type CallView } from './callSession';

// A signalling socket that records what the session sends and lets the test play
// the relay's side.
function fakeSocket(joinResult: Promise<{ callId: string; role: 'customer' | 'attendant'; iceServers: [] }> = Promise.resolve({ callId: 'C', role: 'customer', iceServers: [] })) {
  const sent: unknown[] = [];
  let handlers: CallSocketHandlers | null = null;
  const factory = vi.fn((_token: string, h: CallSocketHandlers) => {
    handlers = h;
    return { join: vi.fn(() => joinResult), signal: vi.fn(async (_id: string, s: unknown) => void sent.push(s)), close: vi.fn() };
  });
  return {
    factory,
    sent,
    frame: (f: Partial<CallFrame>) => handlers!.onFrame({ callId: 'C', from: 'attendant', ...f } as CallFrame),
    closed: (reason: string) => handlers!.onClosed(reason),
  };
}

const stream = () => ({ getTracks: () => [], getAudioTracks: () => [], getVideoTracks: () => [] }) as unknown as MediaStream;

function customer(sock = fakeSocket(), gum: () => Promise<MediaStream> = async () => stream()) {
  const s = new CallSession({ role: 'customer', socketToken: 'call1.x', openSocket: sock.factory, getUserMedia: gum });
  const views: CallView[] = [];
  s.subscribe((v) => views.push(v));
  return { s, sock, last: () => views[views.length - 1] };
}

describe('call session', () => {
  it('rings on a valid link and fails with the link message when the server refuses it', async () => {
    const { s, sock, last } = customer();
    await s.start();
    expect(last().step).toBe('ringing');
    sock.closed('ERR_SESSION_EXPIRED');
    expect(last()).toMatchObject({ step: 'idle', outcome: 'failed', messageKey: callErrors.link });
  });

  it("refuses to answer while the camera is taken by another program: 'O canal atual está ocupado'", async () => {
    const busy = () => Promise.reject(new DOMException('in use', 'NotReadableError'));
    const { s, sock, last } = customer(fakeSocket(), busy);
    await s.start();
    await s.answer();
    expect(last()).toMatchObject({ step: 'ringing', outcome: null, messageKey: callErrors.channelBusy });
    expect(sock.sent).toEqual([]);
  });

  it('fails with the media message when the camera is denied', async () => {
    const denied = () => Promise.reject(new DOMException('no', 'NotAllowedError'));
    const { s, last } = customer(fakeSocket(), denied);
    await s.start();
    await s.answer();
    expect(last()).toMatchObject({ outcome: 'failed', messageKey: callErrors.media });
  });

  it('ends in failed with a message when the peer vanishes, and in ended when it hangs up', async () => {
    const a = customer();
    await a.s.start();
    await a.s.answer();
    expect(a.last().step).toBe('answering');
    a.sock.frame({ type: 'gone' });
    await vi.waitFor(() => expect(a.last()).toMatchObject({ outcome: 'failed', messageKey: callErrors.failed }));

    const b = customer();
    await b.s.start();
    await b.s.answer();
    b.sock.frame({ type: 'end' });
    await vi.waitFor(() => expect(b.last()).toMatchObject({ outcome: 'ended', messageKey: null }));
  });

  it('hangs up by telling the peer first', async () => {
    const { s, sock, last } = customer();
    await s.start();
    await s.answer();
    await s.hangup();
    expect(sock.sent).toEqual([{ type: 'end' }]);
    expect(last().outcome).toBe('ended');
  });
});
