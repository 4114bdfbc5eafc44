import { describe, expect, it, vi } from 'vitest';
import { callErrors } from '../../machines/call.machine';
import { closureCheckMs, makeLauncher, popoutName, type LaunchDeps } from './launcher';

// A popout as the launcher sees it.
function fakePopup() {
  return { closed: false, close: vi.fn(), location: { replace: vi.fn() } } as unknown as Window & { closed: boolean; close: ReturnType<typeof vi.fn> };
}

function deps(over: Partial<LaunchDeps> = {}) {
  const ticks: (() => void)[] = [];
  const d: LaunchDeps & { ticks: (() => void)[]; intervals: number[] } = {
    open: vi.fn(() => fakePopup()),
    start: vi.fn(async () => ({ callId: 'CALLID', token: 'call1.tok' })),
    setInterval: vi.fn((fn: () => void, ms: number) => {
      ticks.push(fn);
      d.intervals.push(ms);
      return ticks.length;
    }),
    clearInterval: vi.fn(),
    ticks,
    intervals: [],
    ...over,
  };
  return d;
}

const idle = (l: ReturnType<typeof makeLauncher>) => l.actor.getSnapshot().matches('idle');

describe('video call launcher', () => {
  it('opens an 800×600 popout on the call window, checks its closure every 500 ms and ends the call when closed', async () => {
    const popup = fakePopup();
    const d = deps({ open: vi.fn(() => popup) });
    const l = makeLauncher(d);
    const r = await l.launch(7, 'Entre na chamada de vídeo:');
    expect(r).toEqual({ ok: true, callId: 'CALLID' });
    expect(d.open).toHaveBeenCalledWith('', popoutName, 'popup,width=800,height=600');
    expect(d.start).toHaveBeenCalledWith(7, 'Entre na chamada de vídeo:');
    expect(popup.location.replace).toHaveBeenCalledWith('/video-call/CALLID#call1.tok');
    expect(d.intervals).toEqual([closureCheckMs]);
    expect(closureCheckMs).toBe(500);
    expect(l.actor.getSnapshot().matches({ busy: 'dialing' })).toBe(true);
    d.ticks[0]();
    expect(idle(l)).toBe(false); // still open
    popup.closed = true;
    d.ticks[0]();
    expect(idle(l)).toBe(true);
    expect(d.clearInterval).toHaveBeenCalled();
  });

  it("refuses a second call while one is active: 'Já tem outra chamada ativa'", async () => {
    const d = deps();
    const l = makeLauncher(d);
    await l.launch(7, '');
    const r = await l.launch(8, '');
    expect(r).toEqual({ ok: false, messageKey: callErrors.anotherActive });
    expect(d.open).toHaveBeenCalledTimes(1);
    expect(d.start).toHaveBeenCalledTimes(1);
  });

  it('reports a blocked popout with its message and sends nothing', async () => {
    const d = deps({ open: vi.fn(() => null) });
    const l = makeLauncher(d);
    expect(await l.launch(7, '')).toEqual({ ok: false, messageKey: callErrors.popupBlocked });
    expect(d.start).not.toHaveBeenCalled();
    expect(idle(l)).toBe(true);
  });

  it('closes the popout and frees the line when the server refuses', async () => {
    const popup = fakePopup();
    const refusal = new Error('ERR_NO_PERMISSION');
    const d = deps({ open: vi.fn(() => popup), start: vi.fn(async () => Promise.reject(refusal)) });
    const l = makeLauncher(d);
    expect(await l.launch(7, '')).toEqual({ ok: false, error: refusal });
    expect(popup.close).toHaveBeenCalled();
    expect(idle(l)).toBe(true);
    expect((await makeLauncher(deps()).launch(7, '')).ok).toBe(true);
  });

  it("follows the popout's reports: talking, held, resumed, ended", async () => {
    let report: ((p: { callId: string; step: string; outcome: 'ended' | 'failed' | null }) => void) | null = null;
    const l = makeLauncher(deps({ listen: (fn) => void (report = fn) }));
    await l.launch(7, '');
    const at = () => l.actor.getSnapshot();
    report!({ callId: 'other', step: 'talking', outcome: null });
    expect(at().matches({ busy: 'dialing' })).toBe(true); // another call's report
    report!({ callId: 'CALLID', step: 'talking', outcome: null });
    expect(at().matches({ busy: { active: 'talking' } })).toBe(true);
    report!({ callId: 'CALLID', step: 'held', outcome: null });
    expect(at().matches({ busy: { active: 'held' } })).toBe(true);
    report!({ callId: 'CALLID', step: 'talking', outcome: null });
    expect(at().matches({ busy: { active: 'talking' } })).toBe(true);
    report!({ callId: 'CALLID', step: 'idle', outcome: 'ended' });
    expect(at().matches('idle')).toBe(true);
  });
});
