import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import { TopBar } from './TopBar';

const ferias = {
  id: 3,
  title: 'Férias coletivas',
  text: 'De 20/12 a 05/01.\nBoas festas!',
  priority: 1,
  mediaPath: '',
  mediaName: '',
  status: true,
  createdAt: '2026-11-20T12:00:00Z',
};

describe('TopBar', () => {
  beforeEach(() => clearResources());

  it('gives an attendant the notification bell (whaticket joins notification from every list)', async () => {
    mockFetch(
      route('GET', '/announcements/', { body: { records: [], count: 0, hasMore: false } }),
      route('GET', '/tickets', { body: { tickets: [], count: 0, hasMore: false } }),
    );
    renderPage(<TopBar onMenu={() => {}} />, { profile: 'user' });
    expect(await screen.findByRole('button', { name: /atendimentos? com mensagens não lidas/ })).toBeInTheDocument();
  });

  it('greets by time of day when there is no active announcement', async () => {
    const { calls } = mockFetch(route('GET', '/announcements/', { body: { records: [], count: 0, hasMore: false } }));
    renderPage(<TopBar onMenu={() => {}} />, { profile: 'user' });
    // The greeting also shows while the request is pending: let it settle first.
    await waitFor(() => expect(calls.map((c) => c.url)).toContain('/announcements/?pageNumber=1&status=active'));
    await act(() => new Promise((r) => setTimeout(r, 20)));
    expect(await screen.findByText(/^(Bom dia|Boa tarde|Boa noite), Admin$/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Novo Informativo/ })).toBeNull();
  });

  it('shows the newest active announcement, opens it, and follows "announcement" events', async () => {
    let records: object[] = [ferias];
    mockFetch(route('GET', '/announcements/', () => ({ body: { records, count: records.length, hasMore: false } })));
    const server = renderPage(<TopBar onMenu={() => {}} />, { profile: 'user' });
    const label = await screen.findByRole('button', { name: 'Novo Informativo: Férias coletivas' });
    await userEvent.click(label);
    const dialog = await screen.findByRole('dialog', { name: 'Férias coletivas' });
    expect(dialog).toHaveTextContent('Alta');
    expect(dialog).toHaveTextContent('Boas festas!');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Fechar' }));

    records = [{ ...ferias, id: 4, title: 'Sistema novo', priority: 3 }, ferias];
    server.send('announcement', { action: 'create', announcement: records[0] });
    expect(await screen.findByRole('button', { name: 'Novo Informativo: Sistema novo' })).toBeInTheDocument();

    records = [];
    server.send('announcement', { action: 'delete', announcementId: 4 });
    expect(await screen.findByText(/^(Bom dia|Boa tarde|Boa noite), Admin$/)).toBeInTheDocument();
  });

  it('reloads only for "announcement" events that may change the newest active one', async () => {
    const { calls } = mockFetch(route('GET', '/announcements/', { body: { records: [ferias], count: 1, hasMore: false } }));
    const server = renderPage(<TopBar onMenu={() => {}} />, { profile: 'user' });
    await screen.findByRole('button', { name: 'Novo Informativo: Férias coletivas' });
    const gets = () => calls.filter((c) => c.url.startsWith('/announcements/')).length;
    const before = gets();

    // An inactive announcement, not the newest: nothing to reload.
    server.send('announcement', { action: 'update', announcement: { ...ferias, id: 7, status: false } });
    server.send('announcement', { action: 'delete', announcementId: 7 });
    await act(() => new Promise((r) => setTimeout(r, 20)));
    expect(gets()).toBe(before);

    // An active one, or the newest itself: reload.
    server.send('announcement', { action: 'create', announcement: { ...ferias, id: 8 } });
    await waitFor(() => expect(gets()).toBe(before + 1));
    await act(() => new Promise((r) => setTimeout(r, 20)));
    server.send('announcement', { action: 'update', announcement: { ...ferias, status: false } });
    await waitFor(() => expect(gets()).toBe(before + 2));
  });
});
