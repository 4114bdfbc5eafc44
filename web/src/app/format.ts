// Date and duration formatting of spec section 9: message times HH:mm, day separators
// dd/MM/yyyy, history dd/MM/yyyy HH:mm. Every date is shown in the tenant's time zone
// (Cuiabá, the zone the server's date filters use), whatever the browser's zone: a
// message time in the chat and the same moment in the ticket history always agree.
import { storageKeys } from '../api/storage';

// defaultTenantTimeZone is the zone of a tenant that set none (engine.TenantTimeZone).
export const defaultTenantTimeZone = 'America/Cuiaba';

// tenantTimeZone is the zone of every date the app shows: the tenant's timeZone
// setting, applied by setTenantTimeZone when the settings load (the main layout). It
// is a live binding: importers read the current zone at each use.
export let tenantTimeZone = defaultTenantTimeZone;

const pad = (n: number) => String(n).padStart(2, '0');

const wallFormat = (timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    hourCycle: 'h23',
  });

let partsFormat = wallFormat(tenantTimeZone);

// setTenantTimeZone makes zone the app's zone; a name the browser does not know is
// ignored (the previous zone stays). It answers whether the zone changed.
export function setTenantTimeZone(zone: string): boolean {
  if (!zone || zone === tenantTimeZone) return false;
  let next: Intl.DateTimeFormat;
  try {
    next = wallFormat(zone);
  } catch {
    return false;
  }
  partsFormat = next;
  tenantTimeZone = zone;
  wallCache.clear();
  return true;
}

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

// Rows format the same minutes over and over (a list re-renders as it scrolls): the
// wall-clock parts are kept per minute, in a bounded cache.
const wallCache = new Map<number, Wall>();
const maxWalls = 5000;

// tenantWall is the wall-clock reading of d in the tenant's zone.
export function tenantWall(d: Date): Wall {
  const minute = Math.floor(d.getTime() / 60000);
  let w = wallCache.get(minute);
  if (!w) {
    const v: Record<string, number> = {};
    for (const p of partsFormat.formatToParts(d)) if (p.type !== 'literal') v[p.type] = Number(p.value);
    w = { year: v.year, month: v.month, day: v.day, hour: v.hour % 24, minute: v.minute };
    if (wallCache.size >= maxWalls) wallCache.clear();
    wallCache.set(minute, w);
  }
  return w;
}

function toDate(iso: string | Date): Date | null {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  return Number.isNaN(d.getTime()) ? null : d;
}

export function formatTime(iso: string | Date): string {
  const d = toDate(iso);
  if (!d) return '';
  const w = tenantWall(d);
  return `${pad(w.hour)}:${pad(w.minute)}`;
}

export function formatDay(iso: string | Date): string {
  const d = toDate(iso);
  if (!d) return '';
  const w = tenantWall(d);
  return `${pad(w.day)}/${pad(w.month)}/${w.year}`;
}

export function sameDay(a: string | Date, b: string | Date): boolean {
  return formatDay(a) === formatDay(b);
}

// A list timestamp: the time for today, the date otherwise.
export function formatListTime(iso: string, now: number): string {
  return sameDay(iso, new Date(now)) ? formatTime(iso) : formatDay(iso);
}

// A moment as dd/MM/yyyy HH:mm (the ticket history, a connection's last update); ''
// for a missing or unreadable date.
export function formatCuiaba(iso: string | undefined): string {
  if (!iso) return '';
  const d = toDate(iso);
  return d ? `${formatDay(d)} ${formatTime(d)}` : '';
}

// clientTimestampDiff (ms, client minus server) as stored at login/refresh.
export function clockSkew(store: Pick<Storage, 'getItem'> = window.localStorage): number {
  const v = Number(store.getItem(storageKeys.clientTimestampDiff));
  return Number.isFinite(v) ? v : 0;
}

export type AgeLevel = 'fresh' | 'warm' | 'hot' | 'late';

export interface Age {
  minutes: number;
  days: number;
  hours: number;
  mins: number;
  level: AgeLevel;
}

// ticketAge measures since the last update on the server's clock (spec section 4):
// up to 2 minutes fresh (green), up to 4 warm (yellow), up to 5 hot (orange), beyond late (red).
export function ticketAge(updatedAt: string, clientNow: number, skewMs: number): Age {
  const serverNow = clientNow - skewMs;
  const ms = Math.max(0, serverNow - Date.parse(updatedAt));
  const minutes = Math.floor(ms / 60000);
  const level: AgeLevel = minutes <= 2 ? 'fresh' : minutes <= 4 ? 'warm' : minutes <= 5 ? 'hot' : 'late';
  return { minutes, days: Math.floor(minutes / 1440), hours: Math.floor((minutes % 1440) / 60), mins: minutes % 60, level };
}
