import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import ScheduledMessagesPage from './ScheduledMessagesPage';
import { ScheduleModal } from './ScheduleModal';

const pending = {
  id: 1,
  kind: 'message',
  contactId: 0,
  contact: null,
  phoneNumber: '5565999990000',
  message: 'Lembrete da consulta',
  imagePath: '',
  wpId: 5,
  userId: 1,
  ticketId: 0,
  tagFilter: [],
  sendAt: '2099-01-02T13:00:00Z',
  status: 'pending',
  errorMessage: 'ERR_NO_SCHEDULE_FOUND',
};

describe('ScheduledMessagesPage', () => {
  it('lists with status and error text, schedules through the modal, and follows "scheduledMessage" events', async () => {
    const { calls } = mockFetch(
      route('GET', '/scheduledMessages/', { body: { schedules: [pending], count: 1, hasMore: false } }),
      route('GET', '/whatsapp/', { body: [{ id: 5, name: 'Zap Clínica' }] }),
      route('POST', '/scheduledMessages', (c) => ({ status: 201, body: { ...pending, id: 2, errorMessage: '', ...(c.body as object) } })),
    );
    const server = renderPage(<ScheduledMessagesPage />, { profile: 'user' });
    const row = await screen.findByTestId('schedule-1');
    // The status and the translated error text of the last attempt.
    expect(row).toHaveTextContent('Pendente: Nenhum agendamento encontrado.');
    expect(row).toHaveTextContent('5565999990000');
    expect(calls[0].url).toBe('/scheduledMessages/?searchParam=&pageNumber=1');

    await userEvent.click(screen.getByRole('button', { name: 'Agendar mensagem' }));
    const dialog = await screen.findByRole('dialog', { name: 'Agendar mensagem' });
    // Nothing typed: the number is asked first, and nothing is sent.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await within(dialog).findAllByText('Obrigatório')).not.toHaveLength(0);
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);

    await userEvent.type(within(dialog).getByLabelText(/^Número/), '+55 65 99999-0001');
    await within(dialog).findByRole('option', { name: 'Zap Clínica' });
    await userEvent.selectOptions(within(dialog).getByLabelText(/^Conexão/), '5');
    const when = within(dialog).getByLabelText(/^Data e hora/) as HTMLInputElement;
    await userEvent.type(when, '2099-01-02T09:00');
    await userEvent.type(within(dialog).getByLabelText(/^Mensagem/), 'Olá, até amanhã!');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(toastStore.getSnapshot().map((i) => i.text)).toContain('Mensagem agendada com sucesso!'));
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toMatchObject({ phoneNumber: '+55 65 99999-0001', wpId: 5, sendAt: '2099-01-02T09:00', message: 'Olá, até amanhã!' });
    expect(await screen.findByTestId('schedule-2')).toBeTruthy();

    // The timer fired: the row turns sent live, and a sent one has no edit or delete.
    server.send('scheduledMessage', { action: 'update', scheduledMessage: { ...pending, status: 'sent', errorMessage: '' } });
    await waitFor(() => expect(screen.getByTestId('schedule-1')).toHaveAttribute('data-status', 'sent'));
    expect(within(screen.getByTestId('schedule-1')).queryByRole('button', { name: 'Excluir' })).toBeNull();
    server.send('scheduledMessage', { action: 'delete', scheduledMessageId: 2 });
    await waitFor(() => expect(screen.queryByTestId('schedule-2')).toBeNull());
  });
});

describe('ScheduleModal from a ticket', () => {
  it('asks neither number nor connection and sends the ticket and its contact', async () => {
    const { calls } = mockFetch(route('POST', '/scheduledMessages', (c) => ({ status: 201, body: { ...pending, ...(c.body as object) } })));
    const saved = vi.fn();
    renderPage(<ScheduleModal schedule={null} ticketId={7} contactId={3} onClose={() => undefined} onSaved={saved} />, { profile: 'user' });
    const dialog = await screen.findByRole('dialog', { name: 'Agendar mensagem' });
    expect(within(dialog).queryByLabelText(/^Número/)).toBeNull();
    expect(within(dialog).queryByLabelText(/^Conexão/)).toBeNull();
    await userEvent.type(within(dialog).getByLabelText(/^Data e hora/), '2099-01-02T09:00');
    await userEvent.type(within(dialog).getByLabelText(/^Mensagem/), 'Retorno combinado');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(saved).toHaveBeenCalled());
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ ticketId: 7, contactId: 3, phoneNumber: '', message: 'Retorno combinado' });
  });
});
