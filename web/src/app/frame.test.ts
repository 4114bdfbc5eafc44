import { frameBatched } from './frame';

function store() {
  const listeners = new Set<() => void>();
  return {
    subscribe: (l: () => void) => {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
    change: () => listeners.forEach((l) => l()),
    size: () => listeners.size,
  };
}

describe('frameBatched', () => {
  it('calls the listener once per frame however many changes came', () => {
    const s = store();
    const frames: (() => void)[] = [];
    const subscribe = frameBatched(s.subscribe, (cb) => frames.push(cb));
    const seen = vi.fn();
    subscribe(seen);
    s.change();
    s.change();
    s.change();
    expect(seen).not.toHaveBeenCalled();
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(seen).toHaveBeenCalledTimes(1);
    s.change();
    expect(frames).toHaveLength(1);
    frames.shift()!();
    expect(seen).toHaveBeenCalledTimes(2);
  });

  it('stays silent after unsubscribing, even with a frame due', () => {
    const s = store();
    const frames: (() => void)[] = [];
    const seen = vi.fn();
    const unsubscribe = frameBatched(s.subscribe, (cb) => frames.push(cb))(seen);
    s.change();
    unsubscribe();
    expect(s.size()).toBe(0);
    frames.forEach((f) => f());
    expect(seen).not.toHaveBeenCalled();
  });
});
