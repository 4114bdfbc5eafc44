// Weekly grid arithmetic (spec section 9): Monday to Saturday, 25 half-hour cells from
// 07:00 to 19:00, the week starting on Monday in the tenant's zone. Dates are plain
// 'YYYY-MM-DD' strings handled as UTC calendar days, so the browser's own zone never
// shifts them.
export { tenantTimeZone } from '../../app/format';
import { tenantTimeZone } from '../../app/format';

export const gridHours: string[] = Array.from({ length: 25 }, (_, i) => {
  const m = 7 * 60 + i * 30;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
});

// The Agenda tab's split between morning and afternoon.
export const afternoonFrom = '12:30';

// nowInZone is the current wall time in zone as 'YYYY-MM-DD HH:mm'.
export function nowInZone(now: Date, zone = tenantTimeZone): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

// mondayOf is the Monday of the week holding date.
export function mondayOf(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  return addDays(date, -((d.getUTCDay() + 6) % 7));
}

// weekDays lists Monday to Saturday of the week starting at monday.
export function weekDays(monday: string): string[] {
  return Array.from({ length: 6 }, (_, i) => addDays(monday, i));
}

// weekdayIndex is 0 for Monday … 5 for Saturday (6 Sunday).
export function weekdayIndex(date: string): number {
  return (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
}
