import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route, type Call } from '../../test/fetch';
import { renderPage } from '../users/pageHarness';
import { toastStore } from '../../components/toast/toastStore';
import CalendarView from './CalendarView';
import { calendarEvents, nextHalfHour, viewRange, wallClock } from './calendarRange';
import type { AgendaTask, Booking } from './api';

// 12:00 UTC is 08:00 in Cuiabá (UTC-4).
const now = () => new Date('2026-11-27T12:00:00Z');

const task: AgendaTask = {
  id: 5,
  taskName: 'Ligar de volta',
  contactId: 7,
  contact: { id: 7, name: 'Dona Maria', number: '5565999990007' },
  message: 'Retorno combinado',
  userId: 1,
  ticketId: null,
  sendAt: '2026-11-27T14:00:00Z',
  tagFilter: [],
  status: 'pending',
};

const booking = {
  id: 8,
  bookingId: 8,
  columnId: 1,
  bookingName: 'Consulta',
  description: 'Primeira consulta',
  bookingTzidFrom: '2026-11-27T15:00:00Z',
  bookingTzidTo: '2026-11-27T16:00:00Z',
  name: '',
  archived: false,
} as Booking;

const rangeOf = (c: Call) => {
  const q = new URL(c.url, 'http://x').searchParams;
  return [q.get('from'), q.get('to')];
};

describe('CalendarView', () => {
  // react-big-calendar's slot selection asks the document what is under the pointer,
  // which jsdom does not implement: nothing is.
  beforeEach(() => {
    Object.defineProperty(document, 'elementFromPoint', { value: () => null, configurable: true });
    toastStore.clear();
  });

  it('opens in Day view from 06:30, shows tasks and bookings of the visible range, and follows live events', async () => {
    const { calls } = mockFetch(
      route('GET', '/agenda/', { body: { tasks: [task], count: 1, hasMore: false } }),
      route('GET', '/agenda/bookings', { body: { bookings: [booking] } }),
    );
    const server = renderPage(<CalendarView now={now} />, { profile: 'user' });
    expect(await screen.findByText('Ligar de volta · Dona Maria')).toBeInTheDocument();
    expect(screen.getByText('Consulta')).toBeInTheDocument();
    const box = screen.getByLabelText('Calendário da agenda');
    expect(box).toHaveAttribute('data-view', 'day');
    // The day of the tenant (Cuiabá), from its midnight (04:00 UTC).
    const taskCall = calls.find((c) => c.url.startsWith('/agenda/?'))!;
    expect(rangeOf(taskCall)).toEqual(['2026-11-27T04:00:00.000Z', '2026-11-28T04:00:00.000Z']);
    expect(new URL(taskCall.url, 'http://x').searchParams.get('pageNumber')).toBe('1');
    expect(rangeOf(calls.find((c) => c.url.startsWith('/agenda/bookings'))!)).toEqual([
      '2026-11-27T04:00:00.000Z',
      '2026-11-28T04:00:00.000Z',
    ]);
    // Hours 06:30 to 23:30: the first slot of the day is 06:30.
    const labels = [...box.querySelectorAll('.rbc-time-gutter .rbc-label')].map((e) => e.textContent);
    // One label an hour (two 30-minute slots), the last hour starting 22:30.
    expect(labels[0]).toBe('06:30');
    expect(labels.at(-1)).toBe('22:30');
    expect((box.querySelector('.rbc-calendar') as HTMLElement).style.height).toBe('880px');

    // Choosing a booking shows its details.
    await userEvent.click(screen.getByText('Consulta'));
    const details = await screen.findByRole('dialog', { name: 'Consulta' });
    expect(details).toHaveTextContent('Primeira consulta');
    expect(details).toHaveTextContent('27/11/2026 11:00–12:00');
    await userEvent.click(within(details).getByRole('button', { name: 'Fechar' }));

    const before = calls.length;
    server.send('agenda', { action: 'create', task: { ...task, id: 6 } });
    await waitFor(() => expect(calls.length).toBeGreaterThan(before));

    await userEvent.click(screen.getByRole('button', { name: 'Semana' }));
    await waitFor(() => expect(box).toHaveAttribute('data-view', 'week'));
    await waitFor(() =>
      expect(rangeOf(calls.filter((c) => c.url.startsWith('/agenda/bookings')).at(-1)!)).toEqual([
        '2026-11-20T04:00:00.000Z',
        '2026-12-05T04:00:00.000Z',
      ]),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Mês' }));
    await waitFor(() => expect(box).toHaveAttribute('data-view', 'month'));
  });

  it('creates a booking through the modal: description, then date and time required', async () => {
    const { calls } = mockFetch(
      route('GET', '/agenda/', { body: { tasks: [], count: 0, hasMore: false } }),
      route('GET', '/agenda/bookings', { body: { bookings: [] } }),
      route('POST', '/agenda/bookings', (c) => ({ status: 201, body: { ...booking, ...(c.body as object) } })),
    );
    renderPage(<CalendarView now={now} />, { profile: 'user' });
    await userEvent.click(await screen.findByRole('button', { name: 'Novo agendamento' }));
    const dialog = await screen.findByRole('dialog', { name: 'Novo agendamento' });
    expect(within(dialog).getByLabelText('Data')).toHaveValue('2026-11-27');
    expect(within(dialog).getByLabelText('Hora')).toHaveValue('08:30');
    await userEvent.clear(within(dialog).getByLabelText('Hora'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(within(dialog).getAllByRole('alert').map((e) => e.textContent)).toEqual(['Insira uma descrição da tarefa', 'Obrigatório']);
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    await userEvent.type(within(dialog).getByLabelText(/^Descrição/), 'Avaliação inicial');
    await userEvent.type(within(dialog).getByLabelText(/^Hora/), '09:30');
    await userEvent.selectOptions(within(dialog).getByLabelText('Duração'), '60');
    await userEvent.selectOptions(within(dialog).getByLabelText('Nível da etiqueta'), '9');
    const reads = calls.length;
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      description: 'Avaliação inicial',
      date: '2026-11-27',
      time: '09:30',
      duration: 60,
      bookingName: '',
      tagJson: '9',
    });
    expect(toastStore.getSnapshot().map((x) => [x.kind, x.text])).toEqual([['success', 'Agenda salva com sucesso!']]);
    await waitFor(() => expect(calls.length).toBeGreaterThan(reads + 1));
  });

  it('still shows bookings when the task route fails', async () => {
    mockFetch(
      route('GET', '/agenda/', { status: 500, body: { error: 'ERR_INTERNAL' } }),
      route('GET', '/agenda/bookings', { body: { bookings: [booking] } }),
    );
    renderPage(<CalendarView now={now} />, { profile: 'user' });
    expect(await screen.findByText('Consulta')).toBeInTheDocument();
  });
});

describe('calendar helpers', () => {
  it('bounds each view in the tenant zone, within the server limit of 62 days', () => {
    const d = new Date('2026-11-27T02:00:00Z'); // 26/11 22:00 in Cuiabá
    expect(viewRange(d, 'day')).toEqual({ from: new Date('2026-11-26T04:00:00Z'), to: new Date('2026-11-27T04:00:00Z') });
    const m = viewRange(d, 'month');
    expect(m.from).toEqual(new Date('2026-10-25T04:00:00Z'));
    expect(m.to).toEqual(new Date('2026-12-08T04:00:00Z'));
    for (const v of ['day', 'week', 'month', 'agenda'] as const) {
      const r = viewRange(d, v);
      expect(r.to.getTime() - r.from.getTime()).toBeLessThanOrEqual(62 * 86_400_000);
    }
  });

  it('merges tasks and bookings by start and drops unreadable times', () => {
    const events = calendarEvents([task, { ...task, id: 9, sendAt: 'never' }], [booking, { ...booking, id: 10, bookingTzidFrom: 'x' }]);
    expect(events.map((e) => e.key)).toEqual(['task-5', 'booking-8']);
    expect(events[0].end.getTime() - events[0].start.getTime()).toBe(30 * 60_000);
  });

  it('gives wall-clock date and time and the next half hour in Cuiabá', () => {
    expect(wallClock(new Date('2026-11-27T03:15:00Z'))).toEqual({ date: '2026-11-26', time: '23:15' });
    expect(wallClock(nextHalfHour(new Date('2026-11-27T12:10:00Z')))).toEqual({ date: '2026-11-27', time: '08:30' });
    expect(wallClock(nextHalfHour(new Date('2026-11-27T12:30:00Z')))).toEqual({ date: '2026-11-27', time: '09:00' });
  });
});
