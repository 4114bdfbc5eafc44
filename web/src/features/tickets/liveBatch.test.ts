import { liveBatcher, type LiveBatchOptions } from './liveBatch';

// A fake clock with frames and timers: frames run when the test says so.
function fakeTime() {
  let t = 0;
  const frames: (() => void)[] = [];
  const timers: { at: number; cb: () => void }[] = [];
  const opts: LiveBatchOptions = {
    now: () => t,
    nextFrame: (cb) => frames.push(cb),
    after: (ms, cb) => timers.push({ at: t + ms, cb }),
  };
  return {
    opts,
    frame: () => frames.splice(0).forEach((cb) => cb()),
    advance: (ms: number) => {
      t += ms;
      for (const tm of timers.filter((x) => x.at <= t)) {
        timers.splice(timers.indexOf(tm), 1);
        tm.cb();
      }
    },
    frames: () => frames.length,
    timers: () => timers.length,
  };
}

describe('liveBatcher', () => {
  it('hands a lone event over at the next frame, and a frame’s events together, in order', () => {
    const f = fakeTime();
    const got: number[][] = [];
    const b = liveBatcher<number>((es) => got.push(es), f.opts);
    b.push(1);
    b.push(2);
    b.push(3);
    expect(got).toEqual([]);
    expect(f.frames()).toBe(1);
    f.frame();
    expect(got).toEqual([[1, 2, 3]]);
  });

  it('keeps hand-overs minIntervalMs apart under a stream', () => {
    const f = fakeTime();
    const got: number[][] = [];
    const b = liveBatcher<number>((es) => got.push(es), { ...f.opts, minIntervalMs: 100 });
    b.push(1);
    f.frame(); // t = 0: delivered
    f.advance(16);
    b.push(2);
    expect(f.frames()).toBe(0); // waits for the interval, not the next frame
    expect(f.timers()).toBe(1);
    f.advance(16);
    b.push(3);
    f.advance(67); // t = 99
    expect(f.frames()).toBe(0);
    f.advance(1); // t = 100: the timer asks for a frame
    expect(f.frames()).toBe(1);
    f.frame();
    expect(got).toEqual([[1], [2, 3]]);
    // Quiet for longer than the interval: the next lone event goes at the next frame.
    f.advance(500);
    b.push(4);
    expect(f.timers()).toBe(0);
    f.frame();
    expect(got.at(-1)).toEqual([4]);
  });

  it('hands over at once when max events wait (no frames in a hidden tab)', () => {
    const f = fakeTime();
    const got: number[][] = [];
    const b = liveBatcher<number>((es) => got.push(es), { ...f.opts, max: 3 });
    for (let i = 1; i <= 7; i++) b.push(i);
    expect(got).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    f.advance(1000);
    f.frame();
    expect(got.at(-1)).toEqual([7]);
    f.frame();
    expect(got).toHaveLength(3);
  });

  it('flush hands over what waits now, and the frame then has nothing to do', () => {
    const f = fakeTime();
    const got: string[][] = [];
    const b = liveBatcher<string>((es) => got.push(es), f.opts);
    b.push('a');
    b.flush();
    expect(got).toEqual([['a']]);
    f.frame();
    expect(got).toEqual([['a']]);
  });

  it('drops what waits when disposed and ignores later events', () => {
    const f = fakeTime();
    const got: number[][] = [];
    const b = liveBatcher<number>((es) => got.push(es), f.opts);
    b.push(1);
    b.dispose();
    b.push(2);
    f.advance(1000);
    f.frame();
    b.flush();
    expect(got).toEqual([]);
  });
});
