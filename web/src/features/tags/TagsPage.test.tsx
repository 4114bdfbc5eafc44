import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import TagsPage from './TagsPage';

describe('TagsPage', () => {
  beforeEach(() => clearResources());

  it('follows the realtime "tags" events, keeping to the current search', async () => {
    const { calls } = mockFetch(
      route('GET', '/tags', (c) =>
        c.url.includes('searchParam=')
          ? { body: { tags: [{ id: 1, name: 'Lead', color: '#1976d2' }], count: 1, hasMore: false } }
          : { body: { tags: [{ id: 1, name: 'Lead', color: '#1976d2' }, { id: 2, name: 'VIP', color: '#d32f2f' }], count: 2, hasMore: false } },
      ),
    );
    const server = renderPage(<TagsPage />);
    expect(await screen.findByTestId('tag-2')).toHaveTextContent('VIP');
    server.send('tags', { action: 'create', tag: { id: 3, name: 'Atacado', color: '#388e3c' } });
    expect(await screen.findByTestId('tag-3')).toHaveTextContent('Atacado');
    server.send('tags', { action: 'update', tag: { id: 2, name: 'VIP ouro', color: '#f9a825' } });
    await waitFor(() => expect(screen.getByTestId('tag-2')).toHaveTextContent('VIP ouro'));
    server.send('tags', { action: 'delete', tagId: 1 });
    await waitFor(() => expect(screen.queryByTestId('tag-1')).toBeNull());

    // Under a search, a new tag that does not match (accents and case ignored) stays out.
    await userEvent.type(screen.getByRole('searchbox', { name: 'Buscar etiquetas' }), 'léa');
    await waitFor(() => expect(calls.some((c) => c.url === '/tags?searchParam=l%C3%A9a')).toBe(true), { timeout: 3000 });
    await screen.findByTestId('tag-1');
    server.send('tags', { action: 'create', tag: { id: 4, name: 'Frio', color: '#212121' } });
    server.send('tags', { action: 'create', tag: { id: 5, name: 'LEAD quente', color: '#212121' } });
    expect(await screen.findByTestId('tag-5')).toBeInTheDocument();
    expect(screen.queryByTestId('tag-4')).toBeNull();
  });

  it('lets every profile create, but only tags:manage edit and delete', async () => {
    mockFetch(route('GET', '/tags', { body: { tags: [{ id: 1, name: 'Lead', color: '#1976d2' }], count: 1, hasMore: false } }));
    renderPage(<TagsPage />, { profile: 'user' });
    const row = await screen.findByTestId('tag-1');
    expect(screen.getByRole('button', { name: 'Adicionar etiqueta' })).toBeInTheDocument();
    expect(within(row).queryByRole('button', { name: 'Editar' })).toBeNull();
    expect(within(row).queryByRole('button', { name: 'Excluir' })).toBeNull();
  });

  it('deletes after confirmation', async () => {
    const { calls } = mockFetch(
      route('GET', '/tags', { body: { tags: [{ id: 1, name: 'Lead', color: '#1976d2' }], count: 1, hasMore: false } }),
      route('DELETE', '/tags/1', { status: 204 }),
    );
    renderPage(<TagsPage />);
    await userEvent.click(within(await screen.findByTestId('tag-1')).getByRole('button', { name: 'Excluir' }));
    const dialog = await screen.findByRole('dialog', { name: 'Excluir etiqueta?' });
    expect(dialog).toHaveTextContent('A etiqueta Lead será removida de todos os atendimentos.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Excluir' }));
    await waitFor(() => expect(screen.queryByTestId('tag-1')).toBeNull());
    expect(calls.at(-1)).toMatchObject({ method: 'DELETE', url: '/tags/1' });
  });
});
