// The waiting clocks: how long since a timestamp, as m:ss or h:mm:ss.
export function formatWait(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

// waitedMs: how long a ticket has waited at browser time now, given the server's
// timestamp and the offset of the server's clock to the browser's.
export function waitedMs(since: string, now: number, clockOffset: number): number {
  const t = Date.parse(since);
  return Number.isFinite(t) ? now + clockOffset - t : 0;
}
