import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import { TicketManager } from './TicketManager';

describe('TicketManager', () => {
  it('schedules a message to a number from the header, with the connection chosen', async () => {
    const { calls } = mockFetch(
      route('GET', '/tickets', { body: { tickets: [], count: 0, hasMore: false } }),
      route('GET', '/tags/list', { body: [] }),
      route('GET', '/whatsapp/', { body: [{ id: 5, name: 'Zap Clínica' }] }),
      route('POST', '/scheduledMessages', (c) => ({ status: 201, body: { id: 3, status: 'pending', ...(c.body as object) } })),
    );
    renderPage(<TicketManager selectedId={null} />, { profile: 'user' });
    await userEvent.click(await screen.findByRole('button', { name: 'Agendar mensagem' }));
    const dialog = await screen.findByRole('dialog', { name: 'Agendar mensagem' });
    await userEvent.type(within(dialog).getByLabelText(/^Número/), '5565999990001');
    await within(dialog).findByRole('option', { name: 'Zap Clínica' });
    await userEvent.selectOptions(within(dialog).getByLabelText(/^Conexão/), '5');
    await userEvent.type(within(dialog).getByLabelText(/^Data e hora/), '2099-01-02T09:00');
    await userEvent.type(within(dialog).getByLabelText(/^Mensagem/), 'Retorno do atendimento');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(toastStore.getSnapshot().map((i) => i.text)).toContain('Mensagem agendada com sucesso!'));
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({
      phoneNumber: '5565999990001',
      wpId: 5,
      ticketId: null,
      sendAt: '2099-01-02T09:00',
      message: 'Retorno do atendimento',
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });
});
