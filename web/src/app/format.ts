// Date and duration formatting of spec section 9: message times HH:mm, day separators
// dd/MM/yyyy, history in the Brazilian locale and the Cuiabá time zone.
import { storageKeys } from '../api/storage';

const pad = (n: number) => String(n).padStart(2, '0');

export function formatTime(iso: string | Date): string {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return '';
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function formatDay(iso: string | Date): string {
  const d = typeof iso === 'string' ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return '';
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${d.getFullYear()}`;
}

export function sameDay(a: string | Date, b: string | Date): boolean {
  return formatDay(a) === formatDay(b);
}

// A list timestamp: the time for today, the date otherwise.
export function formatListTime(iso: string, now: number): string {
  return sameDay(iso, new Date(now)) ? formatTime(iso) : formatDay(iso);
}

// A moment in the product's time zone (spec sections 2 and 9: Cuiabá), dd/MM/yyyy HH:mm
// (the ticket history, a connection's last update); '' for a missing or unreadable date.
const cuiaba = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Cuiaba',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

export function formatCuiaba(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : cuiaba.format(d).replace(',', '');
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
