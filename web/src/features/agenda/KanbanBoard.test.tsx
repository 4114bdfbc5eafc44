import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route, type Call } from '../../test/fetch';
import { renderPage } from '../users/pageHarness';
import { KanbanBoard, applyBooking, moveCard } from './KanbanBoard';
import { tagTone, type Booking, type KanbanColumn } from './api';

function booking(id: number, columnId: number, over: Partial<Booking> = {}): Booking {
  return {
    id,
    bookingId: id,
    columnId,
    bookingName: `Consulta ${id}`,
    bookingTypeName: 'Retorno',
    bookingTypeInfo: '',
    bookingTzidFrom: '2026-11-27T13:30:00Z',
    bookingTzidTo: '2026-11-27T14:00:00Z',
    userId: 1,
    username: 'Ana',
    description: `Descrição ${id}`,
    tagJson: '1',
    positionName: 'Sala 1',
    positionColor: '#00ff00',
    contactId: 7,
    name: `Cliente ${id}`,
    contactNumber: '5565999990007',
    contactCpf: '123.456.789-00',
    contactDob: '1980-01-01',
    profilePicUrl: '',
    distance: '2 km',
    status: 0,
    label: '',
    archived: false,
    ...over,
  };
}

function column(id: number, name: string, kind: KanbanColumn['kind'], cards: Booking[] = []): KanbanColumn {
  return { id, name, position: id, kind, short: true, ConfirmedBooking: cards };
}

const board = () => [
  column(1, 'Novo', 'open', [booking(1, 1, { tagJson: '3' }), booking(2, 1, { tagJson: '7' }), booking(3, 1, { tagJson: '10', status: 26 })]),
  column(2, 'Confirmado', 'open'),
  column(11, '✅ Fechou', 'won'),
  column(12, '❌ Desqualificado', 'lost'),
];

// moveReply answers POST /agenda/kanboard/{id} as the server does: the card in its
// new column, archived with its label when the column is won or lost.
function moveReply(c: Call) {
  const { id, to } = c.body as { id: number; from: number; to: number };
  const label = to === 11 ? '✅ Fechou' : to === 12 ? '❌ Desqualificado' : '';
  return { body: booking(id, to, { label, archived: label !== '' }) };
}

const boardCalls = (calls: Call[]) => calls.filter((c) => c.method === 'POST' && c.url === '/agenda/kanboard');

describe('KanbanBoard', () => {
  it('shows the columns and cards by tag level, concludes and cancels, and follows "booking" events', async () => {
    const { calls } = mockFetch(
      route('POST', '/agenda/kanboard', { body: board() }),
      route('POST', /^\/agenda\/kanboard\/\d+$/, moveReply),
    );
    const server = renderPage(<KanbanBoard />, { profile: 'user' });
    const card1 = await screen.findByTestId('kanban-card-1');
    expect(boardCalls(calls)[0].body).toEqual({ size: 'large' });
    expect(screen.getByRole('region', { name: 'Novo' })).toBeInTheDocument();
    expect(card1).toHaveAttribute('data-tone', 'green');
    expect(screen.getByTestId('kanban-card-2')).toHaveAttribute('data-tone', 'yellow');
    const reduced = screen.getByTestId('kanban-card-3');
    expect(reduced).toHaveAttribute('data-tone', 'red');
    // Status 26: the reduced card shows the name and time, not the details.
    expect(reduced).toHaveAttribute('data-reduced', 'true');
    expect(reduced).toHaveTextContent('Cliente 3');
    expect(reduced).not.toHaveTextContent('Descrição 3');
    expect(card1).toHaveTextContent('Descrição 1');
    // 13:30 UTC is 09:30 in Cuiabá.
    expect(card1).toHaveTextContent('27/11/2026 09:30–10:00');

    await userEvent.click(within(card1).getByRole('button', { name: 'Detalhes' }));
    const info = await screen.findByRole('dialog', { name: 'Consulta 1' });
    expect(info).toHaveTextContent('123.456.789-00');
    expect(info).toHaveTextContent('Sala 1');
    await userEvent.click(within(info).getByRole('button', { name: 'Fechar' }));

    await userEvent.click(within(card1).getByRole('button', { name: '✅ Fechou' }));
    await waitFor(() => expect(screen.queryByTestId('kanban-card-1')).toBeNull());
    expect(calls.find((c) => c.url === '/agenda/kanboard/1')?.body).toEqual({ id: 1, from: 1, to: 11 });

    await userEvent.click(within(screen.getByTestId('kanban-card-2')).getByRole('button', { name: '❌ Desqualificado' }));
    await waitFor(() => expect(screen.queryByTestId('kanban-card-2')).toBeNull());
    expect(calls.find((c) => c.url === '/agenda/kanboard/2')?.body).toEqual({ id: 2, from: 1, to: 12 });

    // Live: a new booking appears in its column; an archived one leaves.
    server.send('booking', { action: 'create', booking: booking(9, 2, { name: 'Cliente novo' }) });
    const confirmado = screen.getByRole('region', { name: 'Confirmado' });
    await waitFor(() => expect(within(confirmado).getByTestId('kanban-card-9')).toHaveTextContent('Cliente novo'));
    server.send('booking', { action: 'update', booking: booking(3, 1, { archived: true, label: '✅ Fechou' }) });
    await waitFor(() => expect(screen.queryByTestId('kanban-card-3')).toBeNull());
  });

  it('reads the board again on its refresh period and with the chosen size', async () => {
    const { calls } = mockFetch(route('POST', '/agenda/kanboard', { body: board() }));
    renderPage(<KanbanBoard refreshMs={100} />, { profile: 'user' });
    await screen.findByTestId('kanban-card-1');
    await waitFor(() => expect(boardCalls(calls).length).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
    await userEvent.selectOptions(screen.getByRole('combobox', { name: /Colunas/ }), 'short');
    await waitFor(() => expect(boardCalls(calls).at(-1)?.body).toEqual({ size: 'short' }));
  });

  it('reloads the board when a move is refused (someone moved the card first)', async () => {
    let moved = false;
    const { calls } = mockFetch(
      route('POST', '/agenda/kanboard', () => ({ body: moved ? [column(1, 'Novo', 'open'), column(2, 'Confirmado', 'open', [booking(1, 2)]), column(11, 'F', 'won')] : board() })),
      route('POST', /^\/agenda\/kanboard\/\d+$/, () => {
        moved = true;
        return { status: 409, body: { error: 'ERR_CONCURRENT_UPDATE' } };
      }),
    );
    renderPage(<KanbanBoard />, { profile: 'user' });
    const card = await screen.findByTestId('kanban-card-1');
    await userEvent.click(within(card).getByRole('button', { name: '✅ Fechou' }));
    const confirmado = screen.getByRole('region', { name: 'Confirmado' });
    await waitFor(() => expect(within(confirmado).getByTestId('kanban-card-1')).toBeInTheDocument());
    expect(boardCalls(calls).length).toBe(2);
    // Kanban errors are not shown (spec section 8).
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('moveCard and applyBooking (the drag and the live fold)', () => {
  it('moves a card between columns and says where from', () => {
    const r = moveCard(board(), 2, 2)!;
    expect(r.from).toBe(1);
    expect(r.board[0].ConfirmedBooking.map((b) => b.id)).toEqual([1, 3]);
    expect(r.board[1].ConfirmedBooking.map((b) => [b.id, b.columnId])).toEqual([[2, 2]]);
    expect(moveCard(board(), 2, 1)).toBeNull(); // same column
    expect(moveCard(board(), 99, 2)).toBeNull(); // unknown card
    expect(moveCard(board(), 2, 99)).toBeNull(); // unknown column
  });

  it('replaces, moves, adds and drops bookings', () => {
    const cols = board();
    expect(applyBooking(cols, booking(1, 1, { description: 'nova' }))[0].ConfirmedBooking[0].description).toBe('nova');
    const moved = applyBooking(cols, booking(1, 2));
    expect(moved[0].ConfirmedBooking.map((b) => b.id)).toEqual([2, 3]);
    expect(moved[1].ConfirmedBooking.map((b) => b.id)).toEqual([1]);
    expect(applyBooking(cols, booking(1, 1, { archived: true }))[0].ConfirmedBooking.map((b) => b.id)).toEqual([2, 3]);
    // A column the short board does not show: the card leaves the board.
    expect(applyBooking(cols, booking(1, 5)).flatMap((c) => c.ConfirmedBooking.map((b) => b.id))).toEqual([2, 3]);
  });
});

describe('tagTone (spec section 9)', () => {
  it("colours '1'–'5' green, '6'–'8' yellow, '9'–'10' red, anything else none", () => {
    expect(['1', '5', '6', '8', '9', '10'].map(tagTone)).toEqual(['green', 'green', 'yellow', 'yellow', 'red', 'red']);
    expect(['', '0', '11', '01', ' 1', 'x', '1.5'].map(tagTone)).toEqual(['none', 'none', 'none', 'none', 'none', 'none', 'none']);
  });
});
