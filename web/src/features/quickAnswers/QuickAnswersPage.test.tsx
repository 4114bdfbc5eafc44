import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { renderPage } from '../users/pageHarness';
import QuickAnswersPage from './QuickAnswersPage';

describe('QuickAnswersPage', () => {
  it('lists, adds through the modal, and follows the realtime "quickAnswer" events', async () => {
    const { calls } = mockFetch(
      route('GET', '/quickAnswers/', { body: { quickAnswers: [{ id: 1, shortcut: 'bd', message: 'Bom dia!' }], count: 1, hasMore: false } }),
      route('POST', '/quickAnswers', (c) => ({ status: 201, body: { id: 2, ...(c.body as object) } })),
    );
    const server = renderPage(<QuickAnswersPage />, { profile: 'user' });
    expect(await screen.findByTestId('quick-answer-1')).toHaveTextContent('/bdBom dia!');
    expect(calls[0].url).toBe('/quickAnswers/?searchParam=&pageNumber=1');

    await userEvent.click(screen.getByRole('button', { name: 'Adicionar resposta' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nova resposta rápida' });
    await userEvent.type(within(dialog).getByLabelText(/^Atalho/), 'bt');
    await userEvent.type(within(dialog).getByLabelText('Resposta'), 'Boa tarde!');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await screen.findByTestId('quick-answer-2')).toHaveTextContent('/btBoa tarde!');

    server.send('quickAnswer', { action: 'update', quickAnswer: { id: 1, shortcut: 'bd', message: 'Bom dia, tudo bem?' } });
    await waitFor(() => expect(screen.getByTestId('quick-answer-1')).toHaveTextContent('Bom dia, tudo bem?'));
    server.send('quickAnswer', { action: 'delete', quickAnswerId: 2 });
    await waitFor(() => expect(screen.queryByTestId('quick-answer-2')).toBeNull());
  });
});
