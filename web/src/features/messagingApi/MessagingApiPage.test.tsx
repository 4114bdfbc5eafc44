import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import MessagingApiPage from './MessagingApiPage';
import { apiExamples } from './examples';
import type { ApiToken } from '../../api/types';

const secret = 'atk_' + 'A'.repeat(43);

const token = (id: number, name: string, extra: Partial<ApiToken> = {}): ApiToken => ({
  id,
  companyId: 1,
  name,
  prefix: 'atk_AAAAAA',
  userId: 1,
  createdAt: '2026-11-20T10:00:00Z',
  lastUsedAt: null,
  revokedAt: null,
  ...extra,
});

describe('MessagingApiPage', () => {
  beforeEach(() => {
    clearResources();
    toastStore.clear();
  });

  it('creates a token after the form rules, shows it once with a copy button, and revokes one after a confirmation', async () => {
    const user = userEvent.setup();
    let list = [token(1, 'CRM antigo', { lastUsedAt: '2026-11-21T10:00:00Z' })];
    const { calls } = mockFetch(
      route('GET', '/apiTokens', () => ({ body: list })),
      route('POST', '/apiTokens', (c) => {
        const created = token(2, (c.body as { name: string }).name);
        list = [created, ...list];
        return { status: 201, body: { ...created, token: secret } };
      }),
      route('DELETE', '/apiTokens/1', () => {
        list = list.map((x) => (x.id === 1 ? { ...x, revokedAt: '2026-11-22T10:00:00Z' } : x));
        return { body: list.find((x) => x.id === 1) };
      }),
    );
    const server = renderPage(<MessagingApiPage origin="https://loja.atende.app" />, { profile: 'admin' });
    const old = await screen.findByTestId('api-token-1');
    expect(within(old).getByText('Ativo')).toBeInTheDocument();
    expect(within(old).getByText('atk_AAAAAA…')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Novo token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Novo token' });
    await user.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(within(dialog).getByText('Obrigatório')).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText(/Nome do token/), 'E');
    await user.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(within(dialog).getByText('Muito curto!')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    await user.type(within(dialog).getByLabelText(/Nome do token/), 'RP da loja');
    await user.click(within(dialog).getByRole('button', { name: 'Salvar' }));

    const shown = await screen.findByRole('dialog', { name: 'Token criado' });
    expect(within(shown).getByTestId('api-token-secret')).toHaveTextContent(secret);
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ name: 'ERP da loja' }]);
    await user.click(within(shown).getByRole('button', { name: 'Copiar token' }));
    expect(await navigator.clipboard.readText()).toBe(secret);
    await user.click(within(shown).getByRole('button', { name: 'Concluído' }));
    expect(screen.queryByText(secret)).not.toBeInTheDocument();
    await screen.findByTestId('api-token-2');

    await user.click(within(screen.getByTestId('api-token-1')).getByRole('button', { name: 'Revogar CRM antigo' }));
    const confirm = await screen.findByRole('dialog', { name: 'Revogar token' });
    await user.click(within(confirm).getByRole('button', { name: 'Revogar CRM antigo' }));
    await waitFor(() => expect(within(screen.getByTestId('api-token-1')).getByText('Revogado')).toBeInTheDocument());
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual(['/apiTokens/1']);
    expect(within(screen.getByTestId('api-token-1')).queryByRole('button')).toBeNull();

    // Another administrator's change arrives over the socket.
    list = [token(3, 'Outro admin'), ...list];
    server.send('apiToken', { action: 'create', apiToken: list[0] });
    await screen.findByTestId('api-token-3');
  }, 120_000);

  it('documents the API at the tenant address with a token placeholder', async () => {
    mockFetch(route('GET', '/apiTokens', { body: [] }));
    renderPage(<MessagingApiPage origin="https://loja.atende.app/" />, { profile: 'admin' });
    await screen.findByText('Nenhum token criado.');
    expect(screen.getByTestId('api-endpoint')).toHaveTextContent('POST https://loja.atende.app/api/messages/send');
    const text = screen.getByTestId('api-example-text').textContent ?? '';
    expect(text).toContain('curl -X POST "https://loja.atende.app/api/messages/send"');
    expect(text).toContain('Authorization: Bearer SEU_TOKEN');
    expect(screen.getByTestId('api-example-media')).toHaveTextContent('-F "medias=@nota.pdf"');
    expect(screen.getByTestId('api-example-idempotent')).toHaveTextContent('Idempotency-Key: pedido-1042');
    expect(apiExamples('http://x', 'T').text).toContain('"number": "5565999990000"');
  });

  it('asks nothing of the server without api-tokens:manage', async () => {
    const { calls } = mockFetch();
    renderPage(<MessagingApiPage />, { profile: 'manager' });
    await screen.findByText('Você não tem permissão para acessar este recurso.', { exact: false });
    expect(calls.filter((c) => c.url.startsWith('/apiTokens'))).toEqual([]);
    expect(screen.queryByRole('button', { name: 'Novo token' })).toBeNull();
  });
});
