import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { TemplateConfirmModal } from './TemplateConfirmModal';
import type { Ticket } from '../../api/types';

const ticket: Ticket = {
  id: 12,
  status: 'open',
  contactId: 30,
  contact: { id: 30, name: 'Maria Souza', number: '5565999990000', email: '' },
  whatsappId: 4,
  channel: 'waba',
  unreadMessages: 0,
  updatedAt: '2026-01-01T00:00:00Z',
};

const templates = route('GET', '/wabatemplates', {
  body: {
    templates: [
      { id: 't1', templateName: 'confirmacao_consulta', language: 'pt_BR', category: 'UTILITY', whatsappId: 4 },
      { id: 't2', templateName: 'lembrete', language: 'pt_BR', category: 'UTILITY', whatsappId: 4 },
      { id: 't9', templateName: 'outra_conta', language: 'en_US', category: 'MARKETING', whatsappId: 8 },
    ],
  },
});

function open() {
  const onClose = vi.fn();
  renderWithProviders(<TemplateConfirmModal ticket={ticket} attendantName="Ana" onClose={onClose} />);
  return { onClose };
}

describe('TemplateConfirmModal', () => {
  beforeEach(() => toastStore.clear());

  it("lists the approved templates of the ticket's connection", async () => {
    mockFetch(templates);
    open();
    const group = await screen.findByRole('radiogroup', { name: 'Templates aprovados' });
    expect(within(group).getAllByRole('radio')).toHaveLength(2);
    expect(within(group).queryByText('outra_conta')).toBeNull();
    expect(screen.getByLabelText('Nome do contato')).toHaveValue('Maria Souza');
    expect(screen.getByLabelText('Atendente')).toHaveValue('Ana');
  });

  it('requires a template: info toast with the spec text, nothing sent', async () => {
    const { calls } = mockFetch(templates);
    const { onClose } = open();
    await screen.findByRole('radiogroup');
    await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));
    expect(toastStore.getSnapshot()).toEqual([
      expect.objectContaining({ kind: 'info', text: 'Necessita escolher um template HSM para poder enviar a mensagem' }),
    ]);
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    expect(onClose).not.toHaveBeenCalled();
  });

  it('sends the chosen template and shows the success toast', async () => {
    const { calls } = mockFetch(templates, route('POST', '/waba/sendtemplatemessage/', { body: { providerId: 'wamid.1' } }));
    const { onClose } = open();
    await userEvent.click(await screen.findByRole('radio', { name: /confirmacao_consulta/ }));
    await userEvent.type(screen.getByLabelText('Nome do paciente'), 'João');
    await userEvent.type(screen.getByLabelText('Data e hora'), '03/12/2026 14:00');
    await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls.at(-1)).toEqual({
      method: 'POST',
      url: '/waba/sendtemplatemessage/',
      body: {
        templateId: 't1',
        contactName: 'Maria Souza',
        patientName: 'João',
        attendantName: 'Ana',
        dateTime: '03/12/2026 14:00',
        lcontactId: 30,
        lticketId: 12,
      },
    });
    expect(toastStore.getSnapshot()).toEqual([expect.objectContaining({ kind: 'success', text: 'Confirmação Enviada' })]);
  });

  it('a refused send shows the error and stays open', async () => {
    mockFetch(templates, route('POST', '/waba/sendtemplatemessage/', { status: 404, body: { error: 'ERR_NO_WAPP_FOUND' } }));
    const { onClose } = open();
    await userEvent.click(await screen.findByRole('radio', { name: /lembrete/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));
    await waitFor(() => expect(toastStore.getSnapshot().map((x) => x.kind)).toEqual(['error']));
    expect(onClose).not.toHaveBeenCalled();
  });
});
