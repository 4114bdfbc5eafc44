import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import AIConfigPage from './AIConfigPage';

describe('AIConfigPage', () => {
  beforeEach(() => {
    clearResources();
    toastStore.clear();
  });

  it('saves the endpoint without echoing the key, and the test shows the provider refusal translated', async () => {
    let view = { configured: false, hasKey: false, baseUrl: '', model: '', speechModel: '', voice: '' };
    const { calls } = mockFetch(
      route('GET', '/iaconfig', () => ({ body: view })),
      route('PUT', '/iaconfig', (c) => {
        const b = c.body as { baseUrl: string; model: string };
        view = { ...view, baseUrl: b.baseUrl, model: b.model, configured: true, hasKey: true };
        return { body: view };
      }),
      route('POST', '/iaconfig/test', { status: 502, body: { error: 'ERR_AI_CREDENTIALS' } }),
    );
    renderPage(<AIConfigPage />);
    expect(await screen.findByText('IA não configurada')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('URL base'), 'http://127.0.0.1:9/v1');
    await userEvent.type(screen.getByLabelText('Chave da API'), 'sk-secreta');
    await userEvent.type(screen.getByLabelText('Modelo'), 'gpt-4o-mini');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    expect(calls.find((c) => c.method === 'PUT')?.body).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-secreta', model: 'gpt-4o-mini' });
    expect(await screen.findByText('IA configurada')).toBeInTheDocument();
    // The key field is emptied; its placeholder says a key is kept.
    expect(screen.getByLabelText('Chave da API')).toHaveValue('');
    expect(screen.getByLabelText('Chave da API')).toHaveAttribute('placeholder', 'Chave salva — deixe em branco para mantê-la');
    await userEvent.click(screen.getByRole('button', { name: 'Testar conexão' }));
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((t) => t.text)).toContain('O provedor de IA recusou a chave de acesso. Verifique a configuração de IA.'),
    );
  });
});
