import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { renderPage } from '../users/pageHarness';
import AnnouncementsPage from './AnnouncementsPage';

const ferias = {
  id: 1,
  title: 'Férias coletivas',
  text: 'De 20/12 a 05/01.',
  priority: 1,
  mediaPath: '',
  mediaName: '',
  status: true,
  createdAt: '2026-11-20T12:00:00Z',
};

describe('AnnouncementsPage', () => {
  it('lists, adds through the modal, and follows the realtime "announcement" events', async () => {
    const { calls } = mockFetch(
      route('GET', '/announcements/', { body: { records: [ferias], count: 1, hasMore: false } }),
      route('POST', '/announcements', (c) => ({ status: 201, body: { ...ferias, id: 2, ...(c.body as object) } })),
    );
    const server = renderPage(<AnnouncementsPage />, { profile: 'superv' });
    expect(await screen.findByTestId('announcement-1')).toHaveTextContent('Férias coletivas');
    expect(calls[0].url).toBe('/announcements/?pageNumber=1');

    await userEvent.click(screen.getByRole('button', { name: 'Novo informativo' }));
    const dialog = await screen.findByRole('dialog', { name: 'Novo informativo' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(within(dialog).getAllByRole('alert').map((e) => e.textContent)).toEqual(['Obrigatório', 'Obrigatório']);
    await userEvent.type(within(dialog).getByLabelText(/^Título/), 'Sistema novo');
    await userEvent.type(within(dialog).getByLabelText(/^Texto/), 'Treinamento às 14h.');
    await userEvent.selectOptions(within(dialog).getByLabelText('Prioridade'), '2');
    await userEvent.click(within(dialog).getByRole('switch'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await screen.findByTestId('announcement-2')).toHaveTextContent('Sistema novo');
    expect(screen.getByTestId('announcement-2')).toHaveTextContent('Inativo');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      title: 'Sistema novo',
      text: 'Treinamento às 14h.',
      priority: 2,
      status: false,
    });

    server.send('announcement', { action: 'update', announcement: { ...ferias, title: 'Recesso' } });
    await waitFor(() => expect(screen.getByTestId('announcement-1')).toHaveTextContent('Recesso'));
    server.send('announcement', { action: 'delete', announcementId: 2 });
    await waitFor(() => expect(screen.queryByTestId('announcement-2')).toBeNull());
  });

  it('lets plain users read but not write', async () => {
    mockFetch(route('GET', '/announcements/', { body: { records: [ferias], count: 1, hasMore: false } }));
    renderPage(<AnnouncementsPage />, { profile: 'user' });
    const row = await screen.findByTestId('announcement-1');
    expect(screen.queryByRole('button', { name: 'Novo informativo' })).toBeNull();
    expect(within(row).queryByRole('button', { name: 'Editar' })).toBeNull();
    await userEvent.click(within(row).getByRole('button', { name: 'Abrir o informativo' }));
    expect(await screen.findByRole('dialog', { name: 'Férias coletivas' })).toHaveTextContent('De 20/12 a 05/01.');
  });
});
