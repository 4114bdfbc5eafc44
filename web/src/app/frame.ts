// Coalescing store notifications to one per animation frame. A busy inbox receives
// ticket events faster than the screen refreshes (BENCHMARKS B8: 100 updates/s); each
// event reaching React on its own means one synchronous render per event. Readers that
// subscribe through frameBatched render at most once per frame, with the latest state —
// and not at all while the tab is hidden (no frames), catching up when it shows again.

type Subscribe = (onChange: () => void) => () => void;

// raf: the next animation frame, or ~16 ms where there are none (tests, workers).
export const raf = (cb: () => void): unknown =>
  typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => cb()) : setTimeout(cb, 16);

// frameBatched wraps a store's subscribe: however many changes happen before the next
// frame, the listener is called once, in that frame.
export function frameBatched(subscribe: Subscribe, nextFrame: (cb: () => void) => unknown = raf): Subscribe {
  return (onChange) => {
    let scheduled = false;
    let live = true;
    const unsubscribe = subscribe(() => {
      if (scheduled) return;
      scheduled = true;
      nextFrame(() => {
        scheduled = false;
        if (live) onChange();
      });
    });
    return () => {
      live = false;
      unsubscribe();
    };
  };
}
