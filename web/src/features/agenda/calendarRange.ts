// Pure helpers of the calendar: the window of time a view shows (what it asks the
// server for) and the calendar events made of agenda tasks and bookings. Times are
// instants; the tenant's zone only decides where days and weeks begin.
import { DateTime } from 'luxon';
import { tenantTimeZone } from '../../app/format';
import type { AgendaTask, Booking } from './api';

export type CalendarViewName = 'day' | 'week' | 'month' | 'agenda';

// A task is a point in time; the calendar draws it as a 30-minute block (the agenda's
// step).
export const taskMinutes = 30;

// The agenda view's span (react-big-calendar's default length).
const agendaDays = 30;

// viewRange is [from, to) around date for view, in the tenant's zone, with a margin
// of a week around a month (the month grid shows the edges of its neighbours). At
// most 45 days, within the server's 62-day limit.
export function viewRange(date: Date, view: CalendarViewName): { from: Date; to: Date } {
  const d = DateTime.fromJSDate(date, { zone: tenantTimeZone });
  switch (view) {
    case 'day':
      return { from: d.startOf('day').toJSDate(), to: d.startOf('day').plus({ days: 1 }).toJSDate() };
    case 'week':
      // Covers a week that starts on Sunday or on Monday.
      return { from: d.startOf('day').minus({ days: 7 }).toJSDate(), to: d.startOf('day').plus({ days: 8 }).toJSDate() };
    case 'month':
      return {
        from: d.startOf('month').minus({ days: 7 }).toJSDate(),
        to: d.startOf('month').plus({ months: 1, days: 7 }).toJSDate(),
      };
    case 'agenda':
      return { from: d.startOf('day').toJSDate(), to: d.startOf('day').plus({ days: agendaDays + 1 }).toJSDate() };
  }
}

export interface CalendarEvent {
  key: string;
  kind: 'task' | 'booking';
  title: string;
  start: Date;
  end: Date;
  status?: AgendaTask['status'];
  archived?: boolean;
  booking?: Booking;
}

export function taskEvent(t: AgendaTask): CalendarEvent | null {
  const start = new Date(t.sendAt);
  if (Number.isNaN(start.getTime())) return null;
  return {
    key: `task-${t.id}`,
    kind: 'task',
    title: t.contact?.name ? `${t.taskName} · ${t.contact.name}` : t.taskName,
    start,
    end: new Date(start.getTime() + taskMinutes * 60_000),
    status: t.status,
  };
}

export function bookingEvent(b: Booking): CalendarEvent | null {
  const start = new Date(b.bookingTzidFrom);
  const end = new Date(b.bookingTzidTo);
  if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime())) return null;
  const what = b.bookingName || b.description;
  return {
    key: `booking-${b.id}`,
    kind: 'booking',
    title: b.name ? `${what} · ${b.name}` : what,
    start,
    end,
    archived: b.archived,
    booking: b,
  };
}

// calendarEvents merges tasks and bookings, dropping any with a time that does not
// parse, ordered by start.
export function calendarEvents(tasks: AgendaTask[], bookings: Booking[]): CalendarEvent[] {
  return [...tasks.map(taskEvent), ...bookings.map(bookingEvent)]
    .filter((e): e is CalendarEvent => e !== null)
    .sort((a, b) => a.start.getTime() - b.start.getTime());
}

// wallClock is an instant as the tenant's date (YYYY-MM-DD) and time (HH:MM), what the
// booking modal sends.
export function wallClock(d: Date): { date: string; time: string } {
  const w = DateTime.fromJSDate(d, { zone: tenantTimeZone });
  return { date: w.toFormat('yyyy-MM-dd'), time: w.toFormat('HH:mm') };
}

// nextHalfHour is the tenant's next :00 or :30 after now, the new booking's default.
export function nextHalfHour(now: Date): Date {
  const w = DateTime.fromJSDate(now, { zone: tenantTimeZone }).startOf('minute');
  const add = 30 - (w.minute % 30);
  return w.plus({ minutes: add }).toJSDate();
}
