import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import { BookingModal } from './BookingModal';

const slots = (taken: number[]) => ({
  futureSlots: [
    { slotId: 31, slotDate: '2099-01-05', slotHour: '07:00', booked: taken.includes(31) },
    { slotId: 32, slotDate: '2099-01-05', slotHour: '07:30', booked: taken.includes(32) },
  ],
});

describe('BookingModal slot picker', () => {
  beforeEach(() => clearResources());

  it("lists a resource's free slots, books the picked one with its time, and drops a slot taken meanwhile", async () => {
    let taken: number[] = [32];
    const { calls } = mockFetch(
      route('GET', '/users/list', { body: [{ id: 8, name: 'Dra. Lima', email: 'l@x.test', profile: 'user' }] }),
      route('GET', '/listpositions/8', { body: { currPositions: [{ positionId: 4, placeId: 1, userId: 8, positionName: 'Consultório 1', positionColor: '#112233' }] } }),
      route('POST', '/futureslots', () => ({ body: slots(taken) })),
      route('POST', '/agenda/bookings', (c) => ({ status: 201, body: { id: 70, ...(c.body as object) } })),
    );
    const saved = vi.fn();
    const server = renderPage(<BookingModal initial={{ date: '2099-01-04', time: '10:00' }} onClose={() => undefined} onSaved={saved} />, { profile: 'user' });
    const dialog = await screen.findByRole('dialog', { name: 'Novo agendamento' });
    await waitFor(() => expect(within(dialog).getByRole('option', { name: 'Dra. Lima' })).toBeInTheDocument());
    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: 'Recurso de' }), 'Dra. Lima');
    const slotSelect = await within(dialog).findByRole('combobox', { name: 'Horário livre' });
    await waitFor(() => expect(within(slotSelect).getAllByRole('option').map((o) => o.textContent)).toEqual(['Escolha um horário livre', '05/01/2099 07:00']));

    // Another attendant takes 07:00: the "slots" event of that resource reloads the list.
    taken = [31, 32];
    server.send('slots', { action: 'update', userId: 8, positionId: 4 });
    await waitFor(() => expect(within(slotSelect).getAllByRole('option').map((o) => o.textContent)).toEqual(['Nenhum horário livre']));

    taken = [32];
    server.send('slots', { action: 'update', userId: 8, positionId: 4 });
    await waitFor(() => expect(within(slotSelect).getAllByRole('option')).toHaveLength(2));
    await userEvent.selectOptions(slotSelect, '05/01/2099 07:00');
    expect(within(dialog).getByLabelText('Data')).toHaveValue('2099-01-05');
    expect(within(dialog).getByLabelText('Hora')).toHaveValue('07:00');
    await userEvent.type(within(dialog).getByRole('textbox', { name: 'Descrição' }), 'Consulta');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(saved).toHaveBeenCalled());
    expect(calls.find((c) => c.method === 'POST' && c.url === '/agenda/bookings')?.body).toMatchObject({ slotId: 31, date: '2099-01-05', time: '07:00', duration: 30, description: 'Consulta' });
  });
});
