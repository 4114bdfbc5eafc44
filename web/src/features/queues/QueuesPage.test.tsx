import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import QueuesPage from './QueuesPage';

const q = (id: number, name: string, color: string, more = {}) => ({
  id,
  name,
  color,
  greetingMessage: '',
  startWork: '',
  endWork: '',
  absenceMessage: '',
  nps: false,
  encouragingMessage: '',
  url: '',
  ...more,
});

describe('QueuesPage', () => {
  beforeEach(() => clearResources());

  it('lists by name, follows the realtime "queue" events, and asks for a greeting once a queue exists', async () => {
    mockFetch(route('GET', '/queue', { body: [q(2, 'Vendas', '#388e3c'), q(1, 'Suporte', '#1976d2', { startWork: '08:00', endWork: '18:00' })] }));
    const server = renderPage(<QueuesPage />);
    expect(await screen.findByTestId('queue-1')).toHaveTextContent('08:00 às 18:00');
    expect(screen.getAllByRole('listitem').map((li) => li.getAttribute('data-testid'))).toEqual(['queue-1', 'queue-2']);

    server.send('queue', { action: 'create', queue: q(3, 'Financeiro', '#00796b') });
    await waitFor(() => expect(screen.getAllByRole('listitem').map((li) => li.getAttribute('data-testid'))).toEqual(['queue-3', 'queue-1', 'queue-2']));
    server.send('queue', { action: 'delete', queueId: 2 });
    await waitFor(() => expect(screen.queryByTestId('queue-2')).toBeNull());

    await userEvent.click(screen.getByRole('button', { name: 'Adicionar fila' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nova fila' });
    await userEvent.type(within(dialog).getByLabelText('Nome'), 'Cobrança');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Obrigatório');
  });

  it('is read-only without queues:manage', async () => {
    mockFetch(route('GET', '/queue', { body: [q(1, 'Suporte', '#1976d2')] }));
    renderPage(<QueuesPage />, { profile: 'user' });
    await screen.findByTestId('queue-1');
    expect(screen.queryByRole('button', { name: 'Adicionar fila' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Editar' })).toBeNull();
  });
});
