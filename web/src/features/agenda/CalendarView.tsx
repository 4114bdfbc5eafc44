// The agenda calendar (/advscheduler), loaded on demand: react-big-calendar with the
// luxon localizer in the tenant's zone. Day view by default, hours 06:30 to 23:30,
// height 880, week, month and list views (spec section 9). It shows the agenda tasks
// (GET /agenda/ bounded to the visible range) and the bookings (GET /agenda/bookings),
// read again on every realtime "agenda" or "booking" event. Choosing a free slot, or
// the new-booking button, opens the booking modal; choosing a booking shows its details.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Calendar, luxonLocalizer, type View } from 'react-big-calendar';
import { DateTime, Settings } from 'luxon';
import 'react-big-calendar/lib/css/react-big-calendar.css';
import { tenantTimeZone } from '../../app/format';
import { useRealtimeEvent, useResync } from '../../app/realtime';
import { Button } from '../../components/primitives';
import { useTheme } from 'styled-components';
import { agendaApi, type AgendaTask, type Booking } from './api';
import { BookingInfoDialog } from './BookingInfoDialog';
import { BookingModal } from './BookingModal';
import { calendarEvents, nextHalfHour, viewRange, wallClock, type CalendarEvent, type CalendarViewName } from './calendarRange';
import { CalendarBox } from './style';

// luxon is used by the calendar alone: its default zone is the tenant's (set on each
// render, so a changed zone setting applies), so the localizer lays days and hours
// out in the tenant's time whatever the browser's zone.
const localizer = luxonLocalizer(DateTime, { firstDayOfWeek: 7 });

// The background of archived bookings: white text on it is 5.9:1.
const archivedEventColor = '#5c6670';

// Spec section 9: hours 6.5 to 23.5, height 880.
export const calendarHeight = 880;
const views: CalendarViewName[] = ['day', 'week', 'month', 'agenda'];

export default function CalendarView({ now = () => new Date() }: { now?: () => Date }) {
  Settings.defaultZone = tenantTimeZone;
  const zone = tenantTimeZone;
  const dayStart = useMemo(() => DateTime.fromObject({ hour: 6, minute: 30 }, { zone }).toJSDate(), [zone]);
  const dayEnd = useMemo(() => DateTime.fromObject({ hour: 23, minute: 30 }, { zone }).toJSDate(), [zone]);
  const { t, i18n } = useTranslation();
  const theme = useTheme();
  const [date, setDate] = useState<Date>(() => now());
  const [view, setView] = useState<CalendarViewName>('day');
  const [tasks, setTasks] = useState<AgendaTask[]>([]);
  const [bookings, setBookings] = useState<Booking[]>([]);
  const [creating, setCreating] = useState<{ date: string; time: string } | null>(null);
  const [shown, setShown] = useState<Booking | null>(null);
  const range = useMemo(() => viewRange(date, view), [date, view]);
  // A load started before the latest one must not overwrite it.
  const generation = useRef(0);

  const load = useCallback(async () => {
    const mine = ++generation.current;
    // Either source may fail alone (the tasks route belongs to the scheduler): the
    // calendar shows what it could read.
    const [tr, br] = await Promise.allSettled([agendaApi.tasks(range.from, range.to), agendaApi.bookings(range.from, range.to)]);
    if (mine !== generation.current) return;
    if (tr.status === 'fulfilled') setTasks(tr.value);
    if (br.status === 'fulfilled') setBookings(br.value);
  }, [range]);

  useEffect(() => {
    void load();
  }, [load]);
  useRealtimeEvent('agenda', () => void load());
  useRealtimeEvent('booking', () => void load());
  useResync(() => void load());

  const events = useMemo(() => calendarEvents(tasks, bookings), [tasks, bookings]);
  const messages = useMemo(
    () => ({
      today: t('agenda.calendar.today'),
      previous: t('agenda.calendar.previous'),
      next: t('agenda.calendar.next'),
      day: t('agenda.calendar.day'),
      week: t('agenda.calendar.week'),
      month: t('agenda.calendar.month'),
      agenda: t('agenda.calendar.agenda'),
      date: t('agenda.calendar.date'),
      time: t('agenda.calendar.time'),
      event: t('agenda.calendar.event'),
      allDay: t('agenda.calendar.allDay'),
      noEventsInRange: t('agenda.calendar.noEvents'),
      showMore: (count: number) => t('agenda.calendar.showMore', { count }),
    }),
    [t],
  );

  return (
    <>
      <div>
        <Button type="button" onClick={() => setCreating(wallClock(nextHalfHour(now())))}>
          {t('agenda.calendar.newBooking')}
        </Button>
      </div>
      <CalendarBox aria-label={t('agenda.calendar.label')} data-view={view}>
        <Calendar<CalendarEvent>
          localizer={localizer}
          culture={i18n.language}
          events={events}
          date={date}
          view={view as View}
          views={views}
          onNavigate={(d) => setDate(d)}
          onView={(v) => setView(v as CalendarViewName)}
          min={dayStart}
          max={dayEnd}
          step={30}
          timeslots={2}
          style={{ height: calendarHeight }}
          messages={messages}
          titleAccessor={(e) => e.title}
          tooltipAccessor={(e) => `${t(e.kind === 'task' ? 'agenda.calendar.task' : 'agenda.calendar.booking')}: ${e.title}`}
          eventPropGetter={(e) => ({
            className: `agenda-event-${e.kind}`,
            style: {
              // A concluded or cancelled booking is drawn in a solid grey rather than
              // faded, so its white text keeps WCAG AA contrast (4.5:1) like the others.
              background: e.archived ? archivedEventColor : e.kind === 'task' ? theme.colors.info : theme.colors.primary,
              color: '#fff',
              textDecoration: e.archived ? 'line-through' : undefined,
            },
          })}
          selectable
          onSelectSlot={(slot) => setCreating(wallClock(slot.start))}
          onSelectEvent={(e) => e.booking && setShown(e.booking)}
        />
      </CalendarBox>
      <BookingInfoDialog booking={shown} onClose={() => setShown(null)} />
      {creating && <BookingModal initial={creating} onClose={() => setCreating(null)} onSaved={() => void load()} />}
    </>
  );
}
