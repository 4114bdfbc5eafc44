import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import { AgendaTaskModal, checkTask } from './AgendaTaskModal';

const toasts = () => toastStore.getSnapshot().map((i) => i.text);
const task = { id: 9, taskName: '', contactId: 4, contact: null, message: '', userId: 1, ticketId: null, sendAt: '2099-01-02T12:00:00Z', tagFilter: [], status: 'pending' };

describe('checkTask', () => {
  const ok = { sendAt: '2099-01-02T09:30', taskName: 'Retorno', message: 'Olá, tudo certo?', contactId: '4' };
  it('answers only the first failing check, in the spec order: schedule, name, message, contact', () => {
    expect(checkTask({ sendAt: '', taskName: '', message: '', contactId: '' }, false)).toEqual({ sendAt: 'agenda.task.scheduleRequired' });
    expect(checkTask({ ...ok, taskName: '', message: '', contactId: '' }, false)).toEqual({ taskName: 'agenda.task.nameRequired' });
    expect(checkTask({ ...ok, message: ' ', contactId: '' }, false)).toEqual({ message: 'agenda.task.messageRequired' });
    expect(checkTask({ ...ok, contactId: '' }, false)).toEqual({ contactId: 'agenda.task.contactRequired' });
    expect(checkTask({ ...ok, contactId: '' }, true)).toEqual({});
    expect(checkTask(ok, false)).toEqual({});
  });
  it('refuses a past time and names or messages out of 3–400 characters', () => {
    expect(checkTask({ ...ok, sendAt: '2000-01-01T09:00' }, false)).toEqual({ sendAt: 'validation.dateBeforeNow' });
    expect(checkTask({ ...ok, taskName: 'ab' }, false)).toHaveProperty('taskName');
    expect(checkTask({ ...ok, message: 'x'.repeat(401) }, false)).toHaveProperty('message');
  });
});

describe('AgendaTaskModal', () => {
  it('toasts the missing fields one at a time in order, then POSTs /agenda with the picked contact and tags', async () => {
    const { calls } = mockFetch(
      route('GET', '/tags/list', { body: [{ id: 2, name: 'VIP', color: '#f00' }] }),
      route('GET', '/contacts', { body: { contacts: [{ id: 4, name: 'Maria Souza', number: '5565999990004' }], hasMore: false } }),
      route('POST', '/agenda', (c) => ({ status: 201, body: { ...task, ...(c.body as object) } })),
    );
    const saved = vi.fn();
    renderPage(<AgendaTaskModal onClose={() => undefined} onSaved={saved} />, { profile: 'user' });
    const dialog = await screen.findByRole('dialog', { name: 'Nova tarefa da agenda' });
    const submit = () => userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));

    await submit();
    await waitFor(() => expect(toasts()).toContain('Informe a data e a hora do agendamento'));
    expect(toasts()).not.toContain('Informe o nome da tarefa');
    const when = within(dialog).getByLabelText(/^Data e hora/) as HTMLInputElement;
    expect(when.step).toBe('1800');
    await userEvent.type(when, '2099-01-02T09:30');
    await submit();
    await waitFor(() => expect(toasts()).toContain('Informe o nome da tarefa'));
    expect(toasts()).not.toContain('Informe a mensagem');
    await userEvent.type(within(dialog).getByLabelText(/^Nome da tarefa/), 'Retorno da consulta');
    await submit();
    await waitFor(() => expect(toasts()).toContain('Informe a mensagem'));
    await userEvent.type(within(dialog).getByLabelText(/^Mensagem/), 'Olá, podemos confirmar?');
    await submit();
    await waitFor(() => expect(toasts()).toContain('Escolha um contato'));
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);

    await userEvent.type(within(dialog).getByRole('searchbox'), 'Mar');
    await userEvent.click(await within(dialog).findByRole('button', { name: /Maria Souza/ }));
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /VIP/ }));
    await submit();
    await waitFor(() => expect(saved).toHaveBeenCalled());
    expect(toasts()).toContain('Agenda salva com sucesso!');
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      taskName: 'Retorno da consulta',
      contactId: 4,
      message: 'Olá, podemos confirmar?',
      userId: null,
      ticketId: null,
      sendAt: '2099-01-02T09:30',
      tagFilter: [2],
    });
  });

  it('from a ticket: the contact is the ticket\'s and the body carries the ticket', async () => {
    const { calls } = mockFetch(
      route('GET', '/tags/list', { body: [] }),
      route('POST', '/agenda', (c) => ({ status: 201, body: { ...task, ...(c.body as object) } })),
    );
    const saved = vi.fn();
    renderPage(<AgendaTaskModal ticketId={7} contact={{ id: 3, name: 'João' }} onClose={() => undefined} onSaved={saved} />, { profile: 'user' });
    const dialog = await screen.findByRole('dialog', { name: 'Nova tarefa da agenda' });
    expect(within(dialog).getByTestId('agenda-task-contact')).toHaveTextContent('João');
    expect(within(dialog).queryByRole('searchbox')).toBeNull();
    await userEvent.type(within(dialog).getByLabelText(/^Data e hora/), '2099-01-02T10:00');
    await userEvent.type(within(dialog).getByLabelText(/^Nome da tarefa/), 'Ligar de volta');
    await userEvent.type(within(dialog).getByLabelText(/^Mensagem/), 'Retorno combinado');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(saved).toHaveBeenCalled());
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ ticketId: 7, contactId: 3, taskName: 'Ligar de volta', tagFilter: [] });
  });
});
