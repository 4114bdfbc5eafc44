// liveBatch gathers a list's socket events and hands them over together (BENCHMARKS B8:
// 100 ticket updates a second reach every list). The ticket list machine then applies
// them in one pass over its ids (ticketList.machine applyLive) and makes one snapshot,
// and the list and its rows re-render once for all of them.
//
// Cadence: a lone event is handed over at the next animation frame; under a stream,
// hand-overs are at least `minIntervalMs` apart (default 100 ms: the list re-orders at
// most ten times a second, which a person reading it cannot tell from sixty, for a
// fraction of the main thread's work: one render, layout and paint per hand-over).
//
// Bounded: a hidden tab gets no frames, so past `max` waiting events the batch is
// handed over at once rather than growing; `flush` hands it over now (before an event
// that must not overtake the waiting ones, such as a refetch).

import { raf } from '../../app/frame';

export interface LiveBatcher<E> {
  push: (event: E) => void;
  flush: () => void;
  // Stops: what waits is dropped, and later pushes are ignored.
  dispose: () => void;
}

export interface LiveBatchOptions {
  nextFrame?: (cb: () => void) => unknown;
  after?: (ms: number, cb: () => void) => unknown;
  now?: () => number;
  minIntervalMs?: number;
  max?: number;
}

const liveBatchMax = 500;
const liveBatchIntervalMs = 100;

export function liveBatcher<E>(deliver: (events: E[]) => void, opts: LiveBatchOptions = {}): LiveBatcher<E> {
  const nextFrame = opts.nextFrame ?? raf;
  const after = opts.after ?? ((ms: number, cb: () => void) => setTimeout(cb, ms));
  const now = opts.now ?? (() => performance.now());
  const interval = opts.minIntervalMs ?? liveBatchIntervalMs;
  const max = opts.max ?? liveBatchMax;
  let waiting: E[] = [];
  let scheduled = false;
  let live = true;
  let last = -Infinity; // when the last batch was handed over
  const flush = () => {
    if (!live || waiting.length === 0) return;
    const events = waiting;
    waiting = [];
    last = now();
    deliver(events);
  };
  const onFrame = () => {
    scheduled = false;
    flush();
  };
  return {
    push(event) {
      if (!live) return;
      waiting.push(event);
      if (waiting.length >= max) {
        flush();
        return;
      }
      if (scheduled) return;
      scheduled = true;
      const wait = last + interval - now();
      if (wait > 0) after(wait, () => nextFrame(onFrame));
      else nextFrame(onFrame);
    },
    flush,
    dispose() {
      live = false;
      waiting = [];
    },
  };
}
