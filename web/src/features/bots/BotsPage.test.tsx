import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import BotsPage from './BotsPage';
import { applyEvent, type BotLevel } from './api';

const tree: BotLevel[] = [
  { id: 1, parentId: 0, commandBot: '1', descriptionBot: 'Vendas', commandType: 'queue', showMessage: '', userId: 0, queueId: 11 },
  { id: 2, parentId: 0, commandBot: '2', descriptionBot: 'Suporte', commandType: 'menu', showMessage: 'Escolha:', userId: 0, queueId: 0 },
  { id: 3, parentId: 2, commandBot: '1', descriptionBot: 'Horário', commandType: 'message', showMessage: 'Das 8h às 18h', userId: 0, queueId: 0 },
];

const refs = [
  route('GET', '/queue', { body: [{ id: 11, name: 'Comercial', color: '#00ff00' }, { id: 12, name: 'Financeiro', color: '#0000ff' }] }),
  route('GET', '/users/list', { body: [{ id: 7, name: 'Ana' }] }),
];

describe('BotsPage', () => {
  beforeEach(() => clearResources());

  it('shows the menus as a tree and follows the realtime "bot" events', async () => {
    mockFetch(route('GET', '/bots', { body: { bots: tree } }), ...refs);
    const server = renderPage(<BotsPage />);
    const suporte = await screen.findByTestId('bot-2');
    expect(within(suporte).getByTestId('bot-3')).toHaveTextContent('Horário');
    await waitFor(() => expect(screen.getByTestId('bot-1')).toHaveTextContent('vai para a fila Comercial'));
    server.send('bot', { action: 'create', bot: { ...tree[2], id: 4, commandBot: '2', descriptionBot: 'Financeiro', commandType: 'queue', queueId: 12 } });
    expect(await within(screen.getByTestId('bot-2')).findByTestId('bot-4')).toHaveTextContent('Financeiro');
    server.send('bot', { action: 'delete', botId: 2 });
    await waitFor(() => expect(screen.queryByTestId('bot-3')).toBeNull());
    expect(screen.queryByTestId('bot-4')).toBeNull();
    expect(screen.getByTestId('bot-1')).toBeInTheDocument();
  });

  it('adds an option under a menu, checking the form first', async () => {
    const { calls } = mockFetch(
      route('GET', '/bots', { body: { bots: tree } }),
      route('POST', '/bots', (c) => ({ status: 201, body: { ...(c.body as object), id: 9 } })),
      ...refs,
    );
    renderPage(<BotsPage />);
    await userEvent.click(await screen.findByRole('button', { name: 'Adicionar opção em Suporte' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nova opção' });
    expect(within(dialog).getByRole('textbox', { name: 'Número da opção' })).toHaveValue('2');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    // Nothing sent: the text and the queue are missing.
    expect(await within(dialog).findAllByText('Obrigatório')).toHaveLength(2);
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    await userEvent.type(within(dialog).getByRole('textbox', { name: /^Texto da opção no menu/ }), 'Financeiro');
    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: /^Fila/ }), 'Financeiro');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')).toBeDefined());
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      parentId: 2, commandBot: '2', descriptionBot: 'Financeiro', commandType: 'queue', showMessage: '', queueId: 12, userId: 0,
    });
    expect(await within(screen.getByTestId('bot-2')).findByTestId('bot-9')).toHaveTextContent('Financeiro');
  });

  it('moves an option down by renumbering its menu', async () => {
    const { calls } = mockFetch(
      route('GET', '/bots', { body: { bots: tree } }),
      route('POST', '/bots/reorder', { body: { bots: [{ ...tree[1], commandBot: '1' }, { ...tree[0], commandBot: '2' }] } }),
      ...refs,
    );
    renderPage(<BotsPage />);
    await screen.findByTestId('bot-1');
    expect(screen.getByRole('button', { name: 'Subir Vendas' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Descer Vendas' }));
    await waitFor(() => expect(calls.at(-1)).toMatchObject({ method: 'POST', url: '/bots/reorder', body: { parentId: 0, ids: [2, 1] } }));
    await waitFor(() => expect(within(screen.getByTestId('bot-1')).getByText('2')).toBeInTheDocument());
  });

  it('shows no editing to a profile without bots:manage', async () => {
    mockFetch(route('GET', '/bots', { body: { bots: tree } }), ...refs);
    renderPage(<BotsPage />, { profile: 'superv' });
    await screen.findByTestId('bot-1');
    expect(screen.queryByRole('button', { name: 'Adicionar opção' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Excluir Vendas' })).toBeNull();
  });

  it('deletes a level with its subtree in applyEvent', () => {
    const deep = [...tree, { ...tree[2], id: 5, parentId: 3 }];
    expect(applyEvent(deep, { action: 'delete', botId: 2 }).map((l) => l.id)).toEqual([1]);
  });
});
