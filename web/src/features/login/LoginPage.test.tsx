import { render, screen, waitFor, within, act } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { ThemeProvider } from 'styled-components';
import { I18nextProvider } from 'react-i18next';
import i18n from '../../i18n';
import { theme } from '../../theme';
import { routes } from '../../app/routes';
import { mockFetch, route } from '../../test/fetch';
import { toastDurationMs, toastStore } from '../../components/toast/toastStore';
import { http } from '../../api/client';

// The socket is the api layer's other door: keep it shut in page tests.
vi.mock('../../api/socket', () => ({
  serverEvents: [],
  socketIoTransport: () => ({ emit: () => {}, reconnect: () => {}, close: () => {} }),
}));

// The inbox (TicketsPage) fetches the conversation's chunk as soon as it shows, and
// that module graph reaches down to api/supervision. A test that lands on the inbox
// waits for the same import, so nothing is still loading when the file's environment
// is torn down (vitest reports a module loaded after teardown as an unhandled error).
const chatChunkLoaded = () => import('../chat/ChatPanel');

const user = { id: 7, name: 'Ana Souza', email: 'ana@atende.dev', profile: 'admin', companyId: 1, queues: [] };

function app() {
  const router = createMemoryRouter(routes, { initialEntries: ['/login'] });
  render(
    <I18nextProvider i18n={i18n}>
      <ThemeProvider theme={theme}>
        <RouterProvider router={router} />
      </ThemeProvider>
    </I18nextProvider>,
  );
  return router;
}

const inbox = [
  route('GET', '/settings', { body: [{ key: 'sideMenu', value: 'enabled' }] }),
  route('GET', '/tickets', { body: { tickets: [], count: 0, hasMore: false } }),
  route('GET', '/tags/list', { body: [] }),
  route('GET', '/users/list', { body: [] }),
];

describe('LoginPage', () => {
  beforeEach(() => toastStore.clear());

  it('asks for email and password before calling the server', async () => {
    const { calls } = mockFetch(...inbox);
    app();
    await userEvent.click(await screen.findByRole('button', { name: 'Entrar' }));
    expect(screen.getAllByRole('alert').map((e) => e.textContent)).toEqual(['Obrigatório', 'Obrigatório']);
    expect(calls.filter((c) => c.url === '/auth/login')).toEqual([]);
  });

  it('toggles the password visibility', async () => {
    mockFetch(...inbox);
    app();
    const password = await screen.findByLabelText('Senha');
    expect(password).toHaveAttribute('type', 'password');
    await userEvent.click(screen.getByRole('button', { name: 'Mostrar senha' }));
    expect(password).toHaveAttribute('type', 'text');
    await userEvent.click(screen.getByRole('button', { name: 'Ocultar senha' }));
    expect(password).toHaveAttribute('type', 'password');
  });

  it('shows the terms of use: liability, LGPD and channel providers', async () => {
    mockFetch(...inbox);
    app();
    await userEvent.click(await screen.findByRole('button', { name: 'termos de uso' }));
    const dialog = screen.getByRole('dialog', { name: 'Termos de uso' });
    expect(within(dialog).getByRole('heading', { name: 'Limites de responsabilidade' })).toBeInTheDocument();
    expect(within(dialog).getByRole('heading', { name: 'Proteção de dados (LGPD)' })).toBeInTheDocument();
    expect(within(dialog).getByRole('heading', { name: 'Provedores dos canais' })).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Entendi' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('logs in: posts the credentials, stores the token, toasts and goes to /tickets', async () => {
    const { calls } = mockFetch(route('POST', '/auth/login', { body: { token: 'jwt-1', user } }), ...inbox);
    const router = app();
    await userEvent.type(await screen.findByLabelText('E-mail'), ' ana@atende.dev ');
    await userEvent.type(screen.getByLabelText('Senha'), 's3cret!');
    await userEvent.click(screen.getByRole('button', { name: 'Entrar' }));
    expect(await screen.findByText('Login efetuado com sucesso!')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/tickets'));
    expect(calls.find((c) => c.url === '/auth/login')?.body).toEqual({ email: 'ana@atende.dev', password: 's3cret!' });
    // The access token is kept in memory only; the user id marks a session to restore.
    expect(http.token).toBe('jwt-1');
    expect(window.localStorage.getItem('token')).toBeNull();
    expect(window.localStorage.getItem('userId')).toBe('7');
    // The main layout greets the user by name.
    expect(await screen.findByText(/Ana Souza/)).toBeInTheDocument();
    await chatChunkLoaded();
  });

  it('shows the translated server error on wrong credentials and stays', async () => {
    mockFetch(route('POST', '/auth/login', { status: 401, body: { error: 'ERR_INVALID_CREDENTIALS' } }), ...inbox);
    const router = app();
    await userEvent.type(await screen.findByLabelText('E-mail'), 'ana@atende.dev');
    await userEvent.type(screen.getByLabelText('Senha'), 'nope');
    await userEvent.click(screen.getByRole('button', { name: 'Entrar' }));
    expect(await screen.findByText('Erro de autenticação. Tente novamente.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(http.token).toBeNull();
  });

  it('says how long to wait when the server refuses more attempts', async () => {
    mockFetch(
      (c) =>
        c.url === '/auth/login'
          ? { status: 429, body: { error: 'ERR_TOO_MANY_ATTEMPTS', message: 'ERR_TOO_MANY_ATTEMPTS', retryAfter: 120 } }
          : undefined,
      ...inbox,
    );
    app();
    await userEvent.type(await screen.findByLabelText('E-mail'), 'ana@atende.dev');
    await userEvent.type(screen.getByLabelText('Senha'), 'nope');
    await userEvent.click(screen.getByRole('button', { name: 'Entrar' }));
    expect(await screen.findByText('Muitas tentativas. Aguarde um pouco e tente de novo. Tente de novo em 2 minutos.')).toBeInTheDocument();
  });

  it('after a reload restores the session from the refresh cookie and sends a visitor of /login to the inbox', async () => {
    window.localStorage.setItem('userId', '7'); // what the earlier page left; its token died with it
    const { calls } = mockFetch(route('POST', '/auth/refresh_token', { body: { token: 'new', user } }), ...inbox);
    const router = app();
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(calls[0].url).toBe('/auth/refresh_token');
    expect(http.token).toBe('new');
    expect(window.localStorage.getItem('token')).toBeNull();
    await chatChunkLoaded();
  });
});

describe('toasts', () => {
  it('close themselves after 3 s', () => {
    vi.useFakeTimers();
    try {
      const { toast } = toastApi();
      toast.success('x');
      expect(toastStore.getSnapshot()).toHaveLength(1);
      act(() => vi.advanceTimersByTime(toastDurationMs - 1));
      expect(toastStore.getSnapshot()).toHaveLength(1);
      act(() => vi.advanceTimersByTime(1));
      expect(toastStore.getSnapshot()).toHaveLength(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

import * as toastModule from '../../components/toast/toastStore';
function toastApi() {
  return toastModule;
}
