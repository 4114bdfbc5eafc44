// Reads a Chromium trace (browser.startTracing/stopTracing) for the benchmark: how much
// main-thread script the ticket list's first render cost.

// Light categories: JS entry points, style/layout, network and user timing — without
// disabled-by-default-devtools.timeline, whose per-task bookkeeping inflates what it
// measures.
export const traceCategories = ['devtools.timeline', 'v8.execute', 'blink.user_timing', 'toplevel'];

const jsNames = new Set(['FunctionCall', 'EvaluateScript', 'RunMicrotasks', 'TimerFire', 'FireAnimationFrame', 'v8.callFunction', 'v8.run']);
const renderNames = new Set(['UpdateLayoutTree', 'Layout']);

// union merges [start, end] intervals (µs) and returns the merged list.
function union(intervals) {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const out = [];
  for (const [a, b] of sorted) {
    const last = out.at(-1);
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

const length = (intervals) => intervals.reduce((s, [a, b]) => s + (b - a), 0);

function clip(intervals, lo, hi) {
  return intervals.map(([a, b]) => [Math.max(a, lo), Math.min(b, hi)]).filter(([a, b]) => b > a);
}

function intersect(xs, ys) {
  const out = [];
  let i = 0;
  let j = 0;
  while (i < xs.length && j < ys.length) {
    const a = Math.max(xs[i][0], ys[j][0]);
    const b = Math.min(xs[i][1], ys[j][1]);
    if (b > a) out.push([a, b]);
    if (xs[i][1] < ys[j][1]) i += 1;
    else j += 1;
  }
  return out;
}

// firstListRender: the window runs from the arrival of the answer to the list's first
// page (a GET /tickets whose URL matches listUrl) to the end of the main-thread task in
// which the first row appeared (the page sets the user-timing mark `mark` when it sees
// it). In that window: script = JS time without the style and layout it forced, and
// those (forced) separately.
export function firstListRender(traceBuffer, { mark, listUrl }) {
  const parsed = JSON.parse(traceBuffer.toString('utf8'));
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const markEv = events.find((e) => e.name === mark);
  if (!markEv) throw new Error(`trace: no ${mark} mark`);
  const { pid, tid } = markEv;
  const main = events.filter((e) => e.pid === pid && e.tid === tid);
  const requests = new Set(
    main.filter((e) => e.name === 'ResourceSendRequest' && listUrl.test(e.args?.data?.url ?? '')).map((e) => e.args.data.requestId),
  );
  const finishes = main.filter((e) => e.name === 'ResourceFinish' && requests.has(e.args?.data?.requestId)).map((e) => e.ts);
  if (finishes.length === 0) throw new Error('trace: the list request was not seen');
  const start = Math.min(...finishes);
  const complete = main.filter((e) => e.ph === 'X' && typeof e.dur === 'number');
  // The task that drew the first row: the stretch of uninterrupted main-thread work
  // (every complete event merged) around the mark.
  const busy = union(complete.map((e) => [e.ts, e.ts + e.dur]));
  const around = busy.find(([a, b]) => a <= markEv.ts && markEv.ts <= b);
  const end = around ? around[1] : markEv.ts;
  const js = clip(union(complete.filter((e) => jsNames.has(e.name)).map((e) => [e.ts, e.ts + e.dur])), start, end);
  const render = clip(union(complete.filter((e) => renderNames.has(e.name)).map((e) => [e.ts, e.ts + e.dur])), start, end);
  const forced = intersect(js, render);
  const ms = (us) => Math.round(us / 10) / 100;
  return {
    windowMs: ms(end - start),
    scriptMs: ms(length(js) - length(forced)),
    forcedStyleLayoutMs: ms(length(forced)),
    styleLayoutMs: ms(length(render)),
  };
}
