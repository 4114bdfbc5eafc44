import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { ticketStore } from '../../machines/ticketStore';
import { TicketRow } from './TicketRow';
import type { Ticket } from '../../api/types';

let nextId = 1000;

function seed(over: Partial<Ticket> = {}): Ticket {
  const t: Ticket = {
    id: nextId++,
    status: 'open',
    contactId: 1,
    contact: { id: 1, name: 'Maria Clara Dias', number: '5565999990000', email: '' },
    unreadMessages: 0,
    channel: 'whatsapp',
    lastMessage: 'Olá, tudo bem?',
    updatedAt: new Date().toISOString(),
    ...over,
  };
  ticketStore.upsert(t);
  return t;
}

function renderRow(t: Ticket) {
  const handlers = { onOpen: vi.fn(), onAccept: vi.fn(), onSpy: vi.fn(), onTransfer: vi.fn() };
  renderWithProviders(<TicketRow id={t.id} {...handlers} />);
  return { handlers, row: screen.getByTestId(`ticket-row-${t.id}`) };
}

describe('TicketRow', () => {
  it('shows name, initials, last message, channel and the assigned user', () => {
    const t = seed({ user: { id: 3, name: 'Beto' } });
    const { row } = renderRow(t);
    expect(within(row).getByText('Maria Clara Dias')).toBeInTheDocument();
    expect(within(row).getByText('MD')).toBeInTheDocument();
    expect(within(row).getByText('Olá, tudo bem?')).toBeInTheDocument();
    expect(within(row).getByRole('img', { name: 'WhatsApp' })).toBeInTheDocument();
    expect(within(row).getByText('Beto')).toBeInTheDocument();
  });

  it('previews a media-only message by its translated kind, not the raw media type', () => {
    const audio = seed({ lastMessage: 'audio' });
    expect(within(renderRow(audio).row).getByText('🎤 Áudio')).toBeInTheDocument();
    const image = seed({ lastMessage: 'image' });
    expect(within(renderRow(image).row).getByText('📷 Imagem')).toBeInTheDocument();
    expect(screen.queryByText('audio')).toBeNull();
    expect(screen.queryByText('image')).toBeNull();
  });

  it('uses the contact picture when there is one', () => {
    const t = seed({ contact: { id: 2, name: 'Pic', number: '1', email: '', profilePicUrl: 'https://cdn.example/p.jpg' } });
    const { row } = renderRow(t);
    expect(row.querySelector('img')).toHaveAttribute('src', 'https://cdn.example/p.jpg');
  });

  it('paints the queue stripe, or grey with the no-queue tooltip', () => {
    const queued = seed({ queueId: 4, queue: { id: 4, name: 'Vendas', color: '#ff0000' } });
    renderRow(queued);
    expect(screen.getByRole('img', { name: 'Vendas' })).toHaveStyle({ background: '#ff0000' });

    const bare = seed();
    const { row } = renderRow(bare);
    const stripe = within(row).getByRole('img', { name: 'Sem fila' });
    expect(stripe).toHaveAttribute('title', 'Sem fila');
  });

  it('shows the unread badge and the resolved badge', () => {
    const { row } = renderRow(seed({ unreadMessages: 3, status: 'closed' }));
    expect(within(row).getByLabelText('3 mensagens não lidas')).toHaveTextContent('3');
    expect(within(row).getByText('Resolvido')).toBeInTheDocument();
  });

  it('has no unread badge at zero and no resolved badge when open', () => {
    const { row } = renderRow(seed());
    expect(within(row).queryByLabelText(/não lida/)).toBeNull();
    expect(within(row).queryByText('Resolvido')).toBeNull();
  });

  it.each([
    [1, 'fresh'],
    [3, 'warm'],
    [5, 'hot'],
    [30, 'late'],
  ] as const)('age badge after %i minutes is %s', (minutes, level) => {
    const { row } = renderRow(seed({ updatedAt: new Date(Date.now() - minutes * 60000 - 1000).toISOString() }));
    const badge = within(row).getByTitle('Tempo desde a última atualização');
    expect(badge).toHaveAttribute('data-level', level);
    expect(badge).toHaveTextContent(`${minutes}m`);
  });

  it('corrects the age with the stored client-server clock difference', () => {
    // The client clock is 10 minutes ahead: an update "10 minutes ago" locally is fresh.
    window.localStorage.setItem('clientTimestampDiff', String(10 * 60000));
    const { row } = renderRow(seed({ updatedAt: new Date(Date.now() - 10 * 60000).toISOString() }));
    expect(within(row).getByTitle('Tempo desde a última atualização')).toHaveAttribute('data-level', 'fresh');
  });

  it('opens an open ticket on click and on Enter', async () => {
    const t = seed();
    const { row, handlers } = renderRow(t);
    await userEvent.click(row);
    expect(handlers.onOpen).toHaveBeenCalledWith(t.id);
    row.focus();
    await userEvent.keyboard('{Enter}');
    expect(handlers.onOpen).toHaveBeenCalledTimes(2);
  });

  it('pending rows: clicking does not open; Accept, Spy and Transfer act', async () => {
    const t = seed({ status: 'pending' });
    const { row, handlers } = renderRow(t);
    await userEvent.click(row);
    expect(handlers.onOpen).not.toHaveBeenCalled();
    await userEvent.click(within(row).getByRole('button', { name: 'Aceitar' }));
    expect(handlers.onAccept).toHaveBeenCalledWith(expect.objectContaining({ id: t.id }));
    await userEvent.click(within(row).getByRole('button', { name: 'Espiar' }));
    expect(handlers.onSpy).toHaveBeenCalledWith(t.id);
    await userEvent.click(within(row).getByRole('button', { name: 'Transferir' }));
    expect(handlers.onTransfer).toHaveBeenCalledWith(expect.objectContaining({ id: t.id }));
    expect(handlers.onOpen).not.toHaveBeenCalled();
  });

  it('open rows have no Accept button', () => {
    const { row } = renderRow(seed());
    expect(within(row).queryByRole('button', { name: 'Aceitar' })).toBeNull();
  });

  it('re-renders when its ticket changes in the store', async () => {
    const t = seed();
    const { row } = renderRow(t);
    ticketStore.upsert({ ...t, unreadMessages: 2, lastMessage: 'Nova mensagem' });
    expect(await within(row).findByText('Nova mensagem')).toBeInTheDocument();
    expect(within(row).getByLabelText('2 mensagens não lidas')).toBeInTheDocument();
  });
});
