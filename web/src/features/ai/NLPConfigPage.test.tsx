import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import NLPConfigPage from './NLPConfigPage';

describe('NLPConfigPage', () => {
  beforeEach(() => {
    clearResources();
    toastStore.clear();
  });

  it('adds an intent with its examples and queue, and deletes it only after confirmation', async () => {
    let list: { id: number; name: string; examples: string[]; queueId: number }[] = [];
    const { calls } = mockFetch(
      route('GET', '/intents', () => ({ body: list })),
      route('GET', '/queue', () => ({ body: [{ id: 3, name: 'Suporte', color: '#123456' }] })),
      route('POST', '/intents', (c) => {
        const b = c.body as { name: string; examples: string[]; queueId: number };
        list = [{ id: 9, ...b }];
        return { status: 201, body: list[0] };
      }),
      route('DELETE', '/intents/9', () => {
        list = [];
        return { status: 204 };
      }),
    );
    renderPage(<NLPConfigPage />);
    expect(await screen.findByText('Nenhuma intenção cadastrada')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Nome'), 'Entrega');
    await userEvent.type(screen.getByLabelText('Frases de exemplo (uma por linha)'), 'meu pedido atrasou{Enter}onde está minha entrega');
    await userEvent.selectOptions(await screen.findByLabelText('Fila'), 'Suporte');
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar intenção' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'Entrega',
      examples: ['meu pedido atrasou', 'onde está minha entrega'],
      queueId: 3,
    });
    expect(await screen.findByText(/Entrega/)).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Excluir' }));
    const dialog = await screen.findByRole('dialog', { name: 'Excluir' });
    expect(within(dialog).getByText('Excluir a intenção Entrega?')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Confirmar' }));
    expect(await screen.findByText('Nenhuma intenção cadastrada')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(1);
  });
});
