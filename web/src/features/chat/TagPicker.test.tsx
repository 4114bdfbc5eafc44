import { useState } from 'react';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route, type Call } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import { TagPicker } from './TagPicker';
import type { Tag, Ticket } from '../../api/types';

const vip: Tag = { id: 1, name: 'VIP', color: '#d32f2f' };
const lead: Tag = { id: 2, name: 'Lead', color: '#1976d2' };
const urgent: Tag = { id: 3, name: 'Urgente', color: '#388e3c' };

const ticket = (tags: Tag[]): Ticket => ({ id: 7, status: 'open', contactId: 3, unreadMessages: 0, updatedAt: '2026-01-01T00:00:00Z', tags });

let setOutside: (t: Ticket) => void = () => {};
function Harness({ initial }: { initial: Ticket }) {
  const [tk, setTk] = useState(initial);
  setOutside = setTk;
  return <TagPicker ticket={tk} onTicketChanged={setTk} />;
}

const byId: Record<number, Tag> = { 1: vip, 2: lead, 3: urgent, 9: { id: 9, name: 'Novo', color: '#000000' } };
// POST /tags/sync answers the ticket with the tags it was given.
const sync = route('POST', '/tags/sync', (c: Call) => {
  const b = c.body as { ticketId: number; tags: number[] };
  return { body: ticket(b.tags.map((id) => byId[id])) };
});
const list = route('GET', '/tags/list', { body: [vip, lead, urgent] });

function chips() {
  return within(screen.getByRole('group', { name: 'Etiquetas' }))
    .queryAllByRole('button', { name: /^Remover etiqueta/ })
    .map((b) => b.getAttribute('aria-label'));
}

describe('TagPicker', () => {
  beforeEach(() => {
    toastStore.clear();
    clearResources();
  });

  it('shows the ticket tags and removes one by replacing the whole set', async () => {
    const { calls } = mockFetch(sync);
    renderWithProviders(<Harness initial={ticket([vip, lead])} />);
    expect(chips()).toEqual(['Remover etiqueta VIP', 'Remover etiqueta Lead']);
    await userEvent.click(screen.getByRole('button', { name: 'Remover etiqueta VIP' }));
    await waitFor(() => expect(chips()).toEqual(['Remover etiqueta Lead']));
    expect(calls).toEqual([{ method: 'POST', url: '/tags/sync', body: { ticketId: 7, tags: [2] } }]);
  });

  it('picks an existing tag from the list', async () => {
    const { calls } = mockFetch(list, sync);
    renderWithProviders(<Harness initial={ticket([vip])} />);
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar etiqueta' }));
    const options = await screen.findByRole('listbox', { name: 'Etiquetas disponíveis' });
    expect(within(options).getByRole('option', { name: /VIP/ })).toHaveAttribute('aria-selected', 'true');
    await userEvent.click(within(options).getByRole('option', { name: /Urgente/ }));
    await waitFor(() => expect(chips()).toEqual(['Remover etiqueta VIP', 'Remover etiqueta Urgente']));
    expect(calls.at(-1)).toEqual({ method: 'POST', url: '/tags/sync', body: { ticketId: 7, tags: [1, 3] } });
  });

  it('loads the tags once, not on every open', async () => {
    const { calls } = mockFetch(list, sync);
    renderWithProviders(<Harness initial={ticket([vip])} />);
    const add = screen.getByRole('button', { name: 'Adicionar etiqueta' });
    await userEvent.click(add);
    await screen.findByRole('listbox', { name: 'Etiquetas disponíveis' });
    await userEvent.click(add);
    await userEvent.click(add);
    expect(await screen.findByRole('listbox', { name: 'Etiquetas disponíveis' })).toBeInTheDocument();
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /tags/list']);
  });

  it('creates a typed tag first, then replaces the set', async () => {
    const { calls } = mockFetch(list, route('POST', '/tags', { status: 201, body: byId[9] }), sync);
    renderWithProviders(<Harness initial={ticket([lead])} />);
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar etiqueta' }));
    await screen.findByRole('listbox', { name: 'Etiquetas disponíveis' });
    await userEvent.type(screen.getByRole('textbox', { name: 'Buscar ou criar etiqueta' }), 'Novo');
    expect(screen.getByRole('option', { name: 'Criar "Novo"' })).toBeInTheDocument();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(chips()).toEqual(['Remover etiqueta Lead', 'Remover etiqueta Novo']));
    expect(calls.slice(1)).toEqual([
      { method: 'POST', url: '/tags', body: { name: 'Novo' } },
      { method: 'POST', url: '/tags/sync', body: { ticketId: 7, tags: [2, 9] } },
    ]);
  });

  it('typing an existing name (case and accents ignored) picks that tag instead of creating', async () => {
    const { calls } = mockFetch(list, sync);
    renderWithProviders(<Harness initial={ticket([])} />);
    expect(screen.getByText('Sem etiquetas')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar etiqueta' }));
    await screen.findByRole('listbox', { name: 'Etiquetas disponíveis' });
    await userEvent.type(screen.getByRole('textbox', { name: 'Buscar ou criar etiqueta' }), 'urgénte{Enter}');
    await waitFor(() => expect(chips()).toEqual(['Remover etiqueta Urgente']));
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /tags/list', 'POST /tags/sync']);
  });

  it('follows the ticket as the socket updates it', async () => {
    mockFetch();
    renderWithProviders(<Harness initial={ticket([vip])} />);
    act(() => setOutside(ticket([lead, urgent])));
    await waitFor(() => expect(chips()).toEqual(['Remover etiqueta Lead', 'Remover etiqueta Urgente']));
  });

  it('a refused change shows the error and keeps the tags', async () => {
    mockFetch(route('POST', '/tags/sync', { status: 404, body: { error: 'ERR_NO_TAG_FOUND' } }));
    renderWithProviders(<Harness initial={ticket([vip, lead])} />);
    await userEvent.click(screen.getByRole('button', { name: 'Remover etiqueta Lead' }));
    await waitFor(() => expect(toastStore.getSnapshot().map((x) => x.kind)).toEqual(['error']));
    expect(chips()).toEqual(['Remover etiqueta VIP', 'Remover etiqueta Lead']);
  });

  it('follows the realtime "tags" events: renamed in place, deleted ones gone', async () => {
    // The server's tags, as GET /tags/list answers them after each event.
    let table: Tag[] = [vip, lead, urgent];
    const { calls } = mockFetch(route('GET', '/tags/list', () => ({ body: table })));
    const server = renderPage(<Harness initial={ticket([vip, lead])} />);
    await waitFor(() => expect(chips()).toEqual(['Remover etiqueta VIP', 'Remover etiqueta Lead']));
    expect(calls).toEqual([]);
    table = [{ id: 1, name: 'VIP ouro', color: '#f9a825' }, lead, urgent];
    server.send('tags', { action: 'update', tag: { id: 1, name: 'VIP ouro', color: '#f9a825' } });
    await waitFor(() => expect(chips()).toEqual(['Remover etiqueta VIP ouro', 'Remover etiqueta Lead']));
    table = [table[0], urgent];
    server.send('tags', { action: 'delete', tagId: 2 });
    await waitFor(() => expect(chips()).toEqual(['Remover etiqueta VIP ouro']));
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /tags/list', 'GET /tags/list']);
  });
});
