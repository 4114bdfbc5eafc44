import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route, type Route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { BookingTabs, type BookingTab } from './BookingTabs';
import { UserModal } from '../users/UserModal';
import { mondayOf, nowInZone } from './grid';
import { renderPage } from '../users/pageHarness';

// Sunday 2026-11-22 08:00 in America/Cuiaba (UTC-4): the grid opens on Monday 23.
const now = () => new Date('2026-11-22T12:00:00Z');

const places = route('GET', '/places', { body: { currPlaces: [{ placeId: 3, placeName: 'Clínica Centro', placeLat: -15.6, placeLng: -56.1 }] } });
const positions = route('GET', '/listpositions/9', {
  body: { currPositions: [{ positionId: 5, placeId: 3, userId: 9, positionName: 'Sala 1', positionColor: '#112233' }] },
});

function open(tab: BookingTab, ...routes: Route[]) {
  const fetch = mockFetch(places, positions, ...routes);
  const onClose = vi.fn();
  renderWithProviders(<BookingTabs tab={tab} userId={9} onClose={onClose} now={now} />);
  return { ...fetch, onClose };
}

const toasts = () => toastStore.getSnapshot().map((x) => `${x.kind}:${x.text}`);
const cell = (slot: string) => document.querySelector<HTMLButtonElement>(`[data-slot="${slot}"]`)!;

describe('grid arithmetic', () => {
  it('reads the tenant wall time and starts weeks on Monday', () => {
    expect(nowInZone(now())).toBe('2026-11-22 08:00');
    expect(mondayOf('2026-11-22')).toBe('2026-11-16');
    expect(mondayOf('2026-11-23')).toBe('2026-11-23');
    expect(mondayOf('2026-11-28')).toBe('2026-11-23');
  });
});

describe('BookingTabs', () => {
  beforeEach(() => toastStore.clear());

  it('waits 1 s before loading places and positions', async () => {
    const { calls } = open('resource');
    // Half the delay later nothing has been asked (a timer never fires early).
    await new Promise((r) => setTimeout(r, 500));
    expect(calls).toEqual([]);
    expect(screen.getByRole('status').textContent).toBe('Carregando…');
    await waitFor(() => expect(calls.map((c) => c.url.split('?')[0]).sort()).toEqual(['/listpositions/9', '/places'].map((p) => expect.stringMatching(new RegExp(`${p}$`)))), { timeout: 3000 });
  });

  it('Grelha: toggles cells of the week and saves the week with the success message', async () => {
    const { calls } = open(
      'grid',
      route('POST', /\/futureslots$/, { body: { futureSlots: [{ slotId: 1, slotDate: '2026-11-23', slotHour: '07:00' }] } }),
      route('POST', /\/insertavailabilitybygrid$/, { body: { inserted: 1, removed: 1 } }),
    );
    await waitFor(() => expect(cell('2026-11-23 07:00').getAttribute('aria-pressed')).toBe('true'), { timeout: 3000 });
    // 6 days × 25 half-hours, 07:00 to 19:00.
    expect(document.querySelectorAll('[data-slot]')).toHaveLength(150);
    expect(cell('2026-11-28 19:00')).toBeTruthy();
    expect(document.querySelector('[data-slot="2026-11-29 07:00"]')).toBeNull();
    await userEvent.click(cell('2026-11-23 07:00'));
    await userEvent.click(cell('2026-11-24 08:00'));
    expect(cell('2026-11-24 08:00').getAttribute('aria-pressed')).toBe('true');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(toasts()).toEqual(['success:Grelha de disponibilidade atualizada']));
    expect(calls.find((c) => c.url.endsWith('/insertavailabilitybygrid'))?.body).toEqual([
      { userId: 9, positionId: 5, weekStart: '2026-11-23', toInsert: ['2026-11-24 08:00'] },
    ]);
  });

  it('Grelha: moves between weeks and shows the raw error of a failed save', async () => {
    const { calls } = open(
      'grid',
      route('POST', /\/futureslots$/, { body: { futureSlots: [] } }),
      route('POST', /\/insertavailabilitybygrid$/, { status: 409, body: { error: 'ERR_SLOT_TAKEN', message: 'ERR_SLOT_TAKEN' } }),
    );
    await waitFor(() => expect(cell('2026-11-23 07:00')).toBeTruthy(), { timeout: 3000 });
    await userEvent.click(screen.getByRole('button', { name: 'Próxima semana' }));
    expect(cell('2026-11-30 07:00')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Semana anterior' }));
    await userEvent.click(screen.getByRole('button', { name: 'Semana anterior' }));
    // The past week cannot be changed.
    expect(cell('2026-11-17 10:00').disabled).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: 'Próxima semana' }));
    await userEvent.click(cell('2026-11-25 10:30'));
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(toasts()).toEqual(['error:ERR_SLOT_TAKEN']));
    expect(calls.filter((c) => c.url.endsWith('/insertavailabilitybygrid'))).toHaveLength(1);
  });

  it('Agenda: the morning switch picks morning slots, the move adds them, Save sends the changes', async () => {
    const { calls } = open(
      'agenda',
      route('POST', /\/availableslots$/, {
        body: {
          availableSlots: [
            { slotId: 0, slotDate: '2026-11-23', slotHour: '07:00' },
            { slotId: 0, slotDate: '2026-11-23', slotHour: '12:30' },
            { slotId: 0, slotDate: '2026-11-24', slotHour: '08:00' },
          ],
        },
      }),
      route('POST', /\/futureslots$/, { body: { futureSlots: [{ slotId: 7, slotDate: '2026-11-25', slotHour: '09:00' }] } }),
      route('POST', /\/insertavailability$/, { body: { inserted: 2, removed: 1 } }),
    );
    const available = await screen.findByRole('group', { name: 'Grade disponível' }, { timeout: 3000 });
    await waitFor(() => expect(within(available).getAllByRole('checkbox')).toHaveLength(3));
    await userEvent.click(screen.getByRole('switch', { name: 'Toda a manhã' }));
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar selecionados à agenda' }));
    const future = screen.getByRole('group', { name: 'Agenda (horários futuros)' });
    expect(within(future).getAllByRole('checkbox').map((c) => c.parentElement?.textContent?.trim())).toEqual([
      '2026-11-23 07:00',
      '2026-11-24 08:00',
      '2026-11-25 09:00',
    ]);
    // Take the existing 09:00 back out of the schedule.
    await userEvent.click(within(future).getByLabelText('2026-11-25 09:00'));
    await userEvent.click(screen.getByRole('button', { name: 'Remover selecionados da agenda' }));
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(toasts()).toEqual(['success:Agenda atualizada']));
    expect(calls.find((c) => c.url.endsWith('/insertavailability'))?.body).toEqual([
      { userId: 9, positionId: 5, toInsert: ['2026-11-23 07:00', '2026-11-24 08:00'], toRemove: ['2026-11-25 09:00'] },
    ]);
    // More dates asks for two more weeks.
    await userEvent.click(screen.getByRole('button', { name: 'Mais datas' }));
    await waitFor(() => expect(calls.filter((c) => c.url.endsWith('/availableslots')).map((c) => (c.body as { days: number }).days)).toContain(28));
  });

  it('Recurso: saves the position at the chosen place', async () => {
    const { calls } = open(
      'resource',
      route('POST', /\/ws\/capacityposition$/, (c) => ({ body: { positionId: 5, ...(c.body as object) } })),
    );
    const name = await screen.findByLabelText('Nome da posição', undefined, { timeout: 3000 });
    expect((name as HTMLInputElement).value).toBe('Sala 1');
    await userEvent.clear(name);
    await userEvent.type(name, ' Consultório 2 ');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(toasts()).toEqual(['success:Recurso salvo']));
    expect(calls.find((c) => c.url.endsWith('/ws/capacityposition'))?.body).toEqual({
      positionId: 5,
      userId: 9,
      placeId: 3,
      positionName: 'Consultório 2',
      positionColor: '#112233',
    });
  });

  it('Recurso: places:manage adds and deletes places; others do not see the controls', async () => {
    const { calls } = mockFetch(
      places,
      positions,
      route('POST', /\/places$/, (c) => ({ status: 201, body: { placeId: 4, ...(c.body as object) } })),
      route('DELETE', /\/places\/3$/, { status: 409, body: { error: 'ERR_PLACE_IN_USE' } }),
    );
    renderWithProviders(<BookingTabs tab="resource" userId={9} onClose={() => {}} canManagePlaces now={now} />);
    const box = await screen.findByRole('group', { name: 'Locais de atendimento' }, { timeout: 3000 });
    await userEvent.type(within(box).getByLabelText('Nome do local'), 'Filial Norte');
    await userEvent.type(within(box).getByLabelText('Latitude'), '-15,5');
    await userEvent.click(within(box).getByRole('button', { name: 'Adicionar local' }));
    // An empty longitude goes as null, which the server refuses, never as 0.
    expect(calls.find((c) => c.method === 'POST' && c.url.endsWith('/places'))?.body).toEqual({ placeName: 'Filial Norte', placeLat: -15.5, placeLng: null });
    await waitFor(() => expect(within(box).getByRole('button', { name: 'Excluir local Filial Norte' })).toBeTruthy());
    expect((screen.getByRole('combobox', { name: 'Local' }) as HTMLSelectElement).value).toBe('4');
    await userEvent.click(within(box).getByRole('button', { name: 'Excluir local Clínica Centro' }));
    await waitFor(() => expect(toasts()).toEqual(['error:Este local tem posições vinculadas e não pode ser excluído.']));
  });

  it('Recurso: without places:manage there is no place editor', async () => {
    open('resource');
    await screen.findByLabelText('Nome da posição', undefined, { timeout: 3000 });
    expect(screen.queryByRole('group', { name: 'Locais de atendimento' })).toBeNull();
  });

  it('Grelha: a "slots" event of this user reloads the grid; another user\'s does not', async () => {
    let served = [{ slotId: 1, slotDate: '2026-11-23', slotHour: '07:00' }];
    const { calls } = mockFetch(places, positions, route('POST', /\/futureslots$/, () => ({ body: { futureSlots: served } })));
    const server = renderPage(<BookingTabs tab="grid" userId={9} onClose={() => {}} now={now} />);
    await waitFor(() => expect(cell('2026-11-23 07:00').getAttribute('aria-pressed')).toBe('true'), { timeout: 3000 });
    served = [{ slotId: 2, slotDate: '2026-11-24', slotHour: '09:30' }];
    server.send('slots', { action: 'update', userId: 8, positionId: 4 });
    server.send('slots', { action: 'update', userId: 9, positionId: 5 });
    await waitFor(() => expect(cell('2026-11-24 09:30').getAttribute('aria-pressed')).toBe('true'));
    expect(cell('2026-11-23 07:00').getAttribute('aria-pressed')).toBe('false');
    expect(calls.filter((c) => c.url.endsWith('/futureslots'))).toHaveLength(2);
  });

  it('the user modal shows the booking tabs only when editing', async () => {
    mockFetch(places, positions, route('POST', /\/futureslots$/, { body: { futureSlots: [] } }));
    const { unmount } = renderWithProviders(
      <UserModal user={null} callerProfile="admin" canEditProfile={false} canEditQueues={false} onClose={() => {}} onSaved={() => {}} />,
    );
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Usuário']);
    unmount();
    renderWithProviders(
      <UserModal
        user={{ id: 9, name: 'Carla', email: 'c@a.dev', profile: 'user', companyId: 1, queues: [], whatsappId: null }}
        callerProfile="admin"
        canEditProfile={false}
        canEditQueues={false}
        onClose={() => {}}
        onSaved={() => {}}
      />,
    );
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Usuário', 'Recurso', 'Agenda', 'Grelha']);
    await userEvent.click(screen.getByRole('tab', { name: 'Grelha' }));
    expect(screen.getByRole('tab', { name: 'Grelha' }).getAttribute('aria-selected')).toBe('true');
    await waitFor(() => expect(document.querySelectorAll('[data-slot]').length).toBe(150), { timeout: 3000 });
  });
});
