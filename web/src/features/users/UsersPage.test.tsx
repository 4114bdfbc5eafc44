import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from './pageHarness';
import UsersPage from './UsersPage';
import type { User } from '../../api/types';

const user = (id: number, name: string, profile = 'user'): User => ({
  id,
  name,
  email: `${name.toLowerCase()}@atende.dev`,
  profile,
  companyId: 1,
  queues: [],
});

describe('UsersPage', () => {
  beforeEach(() => {
    clearResources();
    toastStore.clear();
  });

  it('lists users and follows the realtime "user" events of another browser', async () => {
    mockFetch(route('GET', '/users/', { body: { users: [user(1, 'Admin', 'admin'), user(2, 'Ana')], count: 2, hasMore: false } }));
    const server = renderPage(<UsersPage />);
    expect(await screen.findByTestId('user-2')).toHaveTextContent('Ana');
    expect(screen.getByTestId('user-2')).toHaveTextContent('Usuário');

    server.send('user', { action: 'create', user: user(3, 'Bruno', 'superv') });
    expect(await screen.findByTestId('user-3')).toHaveTextContent('Supervisor');
    server.send('user', { action: 'update', user: { ...user(2, 'Ana Lima'), profile: 'userplus' } });
    await waitFor(() => expect(screen.getByTestId('user-2')).toHaveTextContent('Ana Lima'));
    expect(screen.getByTestId('user-2')).toHaveTextContent('Usuário plus');
    server.send('user', { action: 'delete', userId: 2 });
    await waitFor(() => expect(screen.queryByTestId('user-2')).toBeNull());
    expect(screen.getByTestId('user-3')).toBeInTheDocument();
  });

  it('ignores malformed realtime payloads', async () => {
    mockFetch(route('GET', '/users/', { body: { users: [user(2, 'Ana')], count: 1, hasMore: false } }));
    const server = renderPage(<UsersPage />);
    await screen.findByTestId('user-2');
    server.send('user', { action: 'update' });
    server.send('user', { action: 'delete' });
    server.send('user', { action: 'delete', userId: 99 });
    server.send('user', { action: 'create', user: { ...user(5, 'Zé'), profile: 'hacker' } });
    expect(screen.getByTestId('user-2')).toBeInTheDocument();
    // An unknown profile shows as sent, untranslated.
    expect(await screen.findByTestId('user-5')).toHaveTextContent('hacker');
  });

  it('searches by name after the debounce', async () => {
    const { calls } = mockFetch(
      route('GET', '/users/', (c) =>
        c.url.includes('searchParam=bru')
          ? { body: { users: [user(3, 'Bruno')], count: 1, hasMore: false } }
          : { body: { users: [user(2, 'Ana'), user(3, 'Bruno')], count: 2, hasMore: false } },
      ),
    );
    renderPage(<UsersPage />);
    await screen.findByTestId('user-2');
    await userEvent.type(screen.getByRole('searchbox', { name: 'Buscar usuários' }), 'bru');
    await waitFor(() => expect(screen.queryByTestId('user-2')).toBeNull(), { timeout: 3000 });
    expect(calls.map((c) => c.url)).toContain('/users/?searchParam=bru&pageNumber=1');
  });

  it('deletes after confirmation; nobody may delete themselves or a more privileged user', async () => {
    const { calls } = mockFetch(
      route('GET', '/users/', { body: { users: [user(1, 'Sup', 'superv'), user(2, 'Ana'), user(4, 'Root', 'admin')], count: 3, hasMore: false } }),
      route('DELETE', '/users/2', { status: 204 }),
    );
    renderPage(<UsersPage />, { profile: 'superv', userId: 1 });
    const ana = await screen.findByTestId('user-2');
    expect(within(screen.getByTestId('user-1')).queryByRole('button', { name: 'Excluir' })).toBeNull();
    expect(within(screen.getByTestId('user-4')).queryByRole('button', { name: 'Excluir' })).toBeNull();
    expect(within(screen.getByTestId('user-4')).queryByRole('button', { name: 'Editar' })).toBeNull();
    await userEvent.click(within(ana).getByRole('button', { name: 'Excluir' }));
    const dialog = await screen.findByRole('dialog', { name: 'Excluir usuário?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Excluir' }));
    await waitFor(() => expect(screen.queryByTestId('user-2')).toBeNull());
    expect(calls.some((c) => c.method === 'DELETE' && c.url === '/users/2')).toBe(true);
  });

  it('offers no add button to a supervisor while user creation is disabled; an admin keeps it', async () => {
    const routes = [
      route('GET', '/users/', { body: { users: [user(2, 'Ana')], count: 1, hasMore: false } }),
      route('GET', '/settings', { body: [{ key: 'userCreation', value: 'disabled' }] }),
    ];
    mockFetch(...routes);
    renderPage(<UsersPage />, { profile: 'superv', userId: 1 });
    await screen.findByTestId('user-2');
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Adicionar usuário' })).toBeNull());
    cleanup();
    clearResources();
    mockFetch(...routes);
    renderPage(<UsersPage />, { profile: 'admin', userId: 1 });
    await screen.findByTestId('user-2');
    expect(screen.getByRole('button', { name: 'Adicionar usuário' })).toBeInTheDocument();
  });

  it('offers no add button to a profile without users:manage', async () => {
    mockFetch(route('GET', '/users/', { body: { users: [user(2, 'Ana')], count: 1, hasMore: false } }));
    renderPage(<UsersPage />, { profile: 'user', userId: 2 });
    await screen.findByTestId('user-2');
    expect(screen.queryByRole('button', { name: 'Adicionar usuário' })).toBeNull();
    // Oneself: editable (name and password), not deletable.
    expect(within(screen.getByTestId('user-2')).getByRole('button', { name: 'Editar' })).toBeInTheDocument();
    expect(within(screen.getByTestId('user-2')).queryByRole('button', { name: 'Excluir' })).toBeNull();
  });
});
