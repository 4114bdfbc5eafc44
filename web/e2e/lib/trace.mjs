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
  // The same in thread CPU time (tdur), which a loaded machine does not stretch: the
  // outermost JS events' CPU, less that of the style and layout they forced, each taken
  // in the share of its wall time that falls in the window.
  const share = (e) => {
    const a = Math.max(e.ts, start);
    const b = Math.min(e.ts + e.dur, end);
    return b > a && e.dur > 0 ? ((e.tdur ?? e.dur) * (b - a)) / e.dur : 0;
  };
  const outermost = (names) => {
    const out = [];
    let until = -Infinity;
    for (const e of complete.filter((x) => names.has(x.name)).sort((x, y) => x.ts - y.ts)) {
      if (e.ts + e.dur <= until) continue;
      out.push(e);
      until = e.ts + e.dur;
    }
    return out;
  };
  const jsTop = outermost(jsNames);
  const inJs = (e) => jsTop.some((j) => j.ts <= e.ts && e.ts + e.dur <= j.ts + j.dur);
  const jsCpu = jsTop.reduce((sum, e) => sum + share(e), 0);
  const forcedCpu = outermost(renderNames).filter(inJs).reduce((sum, e) => sum + share(e), 0);
  return {
    windowMs: ms(end - start),
    scriptMs: ms(length(js) - length(forced)),
    scriptCpuMs: ms(jsCpu - forcedCpu),
    forcedStyleLayoutMs: ms(length(forced)),
    styleLayoutMs: ms(length(render)),
  };
}

// Categories for the phases: top-level tasks only (ThreadControllerImpl::RunTask, with
// wall and thread time), light enough to leave on while frames are measured.
export const taskCategories = ['toplevel', 'blink.user_timing'];

// longTasks lists the renderer main thread's top-level tasks longer than overMs of wall
// time, each with the CPU time the thread actually ran in it (the event's tdur). A long
// task with little CPU is a thread that waited to be scheduled (a loaded machine), not
// page work. Also returns the main thread's busy wall and CPU time over the trace, and,
// for each user-timing mark named frameMark + <length ms> (the page marks the end of a
// long frame), the wall and CPU time of the main-thread tasks inside that frame.
export function longTasks(traceBuffer, { overMs = 50, frameMark = null } = {}) {
  const parsed = JSON.parse(traceBuffer.toString('utf8'));
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const counts = new Map();
  for (const e of events) if (e.ph === 'X') counts.set(`${e.pid}:${e.tid}`, (counts.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
  const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const main = mains.sort((a, b) => (counts.get(`${b.pid}:${b.tid}`) ?? 0) - (counts.get(`${a.pid}:${a.tid}`) ?? 0))[0];
  if (!main) return { tasks: [], wallMs: 0, cpuMs: 0, frames: [] };
  const runs = events
    .filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask')
    .sort((a, b) => a.ts - b.ts);
  const top = [];
  let end = -Infinity;
  for (const e of runs) {
    if (e.ts + e.dur <= end) continue; // nested in the previous top-level task
    top.push(e);
    end = e.ts + e.dur;
  }
  const ms = (us) => Math.round((us ?? 0) / 100) / 10;
  const frames = [];
  if (frameMark) {
    for (const m of events.filter((e) => e.pid === main.pid && typeof e.name === 'string' && e.name.startsWith(frameMark) && e.ph !== 'e')) {
      const frameMs = Number(m.name.slice(frameMark.length));
      const lo = m.ts - frameMs * 1000;
      let wall = 0;
      let cpu = 0;
      for (const e of top) {
        const a = Math.max(e.ts, lo);
        const b = Math.min(e.ts + e.dur, m.ts);
        if (b <= a) continue;
        wall += b - a;
        cpu += ((e.tdur ?? 0) * (b - a)) / e.dur; // a task cut by the frame's edge: its share
      }
      frames.push({ frameMs, wallMs: ms(wall), cpuMs: ms(cpu) });
    }
  }
  return {
    frames,
    tasks: top.filter((e) => e.dur > overMs * 1000).map((e) => ({ wallMs: ms(e.dur), cpuMs: ms(e.tdur) })),
    wallMs: ms(top.reduce((s, e) => s + e.dur, 0)),
    cpuMs: ms(top.reduce((s, e) => s + (e.tdur ?? 0), 0)),
  };
}
