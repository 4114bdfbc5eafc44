import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { QueueModal, type QueueModalProps } from './QueueModal';

function open(props: Partial<QueueModalProps> = {}) {
  const onSaved = vi.fn();
  const onClose = vi.fn();
  renderWithProviders(<QueueModal queue={null} greetingRequired={false} takenColors={[]} onClose={onClose} onSaved={onSaved} {...props} />);
  return { onSaved, onClose };
}

const alerts = () => screen.getAllByRole('alert').map((e) => e.textContent);

describe('QueueModal', () => {
  beforeEach(() => toastStore.clear());

  it('shows the section 5 messages in Portuguese and sends nothing while invalid', async () => {
    const { calls } = mockFetch();
    open({ greetingRequired: true, takenColors: ['#1976d2'] });
    await userEvent.type(screen.getByLabelText('Nome'), 'S');
    await userEvent.clear(screen.getByLabelText('Código da cor'));
    await userEvent.type(screen.getByLabelText('Código da cor'), '#1976D2');
    await userEvent.type(screen.getByLabelText('Início do expediente'), '08:00');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    // Name too short; the colour another queue has; the greeting, required once there
    // is more than one queue; the end of the working hours, since the start is set.
    expect(alerts()).toEqual(['Muito curto!', 'Esta cor já está em uso, escolha outra.', 'Obrigatório', 'Obrigatório']);
    expect(calls).toEqual([]);
  });

  it('creates the queue with every field of spec section 3', async () => {
    const { calls } = mockFetch(route('POST', '/queue', (c) => ({ status: 201, body: { id: 7, ...(c.body as object) } })));
    const { onSaved, onClose } = open({ greetingRequired: true });
    await userEvent.type(screen.getByLabelText('Nome'), ' Financeiro ');
    await userEvent.clear(screen.getByLabelText('Código da cor'));
    await userEvent.type(screen.getByLabelText('Código da cor'), '#00796B');
    await userEvent.type(screen.getByLabelText('Mensagem de saudação'), 'Olá! Digite 1 para boletos.');
    await userEvent.type(screen.getByLabelText('Início do expediente'), '08:00');
    await userEvent.type(screen.getByLabelText('Fim do expediente'), '18:00');
    await userEvent.type(screen.getByLabelText('Mensagem de ausência'), 'Voltamos às 8h.');
    await userEvent.click(screen.getByRole('switch', { name: 'Pesquisa de satisfação (NPS)' }));
    await userEvent.type(screen.getByLabelText('Endereço (URL)'), 'https://atende.dev/financeiro');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls).toEqual([
      {
        method: 'POST',
        url: '/queue',
        body: {
          name: 'Financeiro',
          color: '#00796b',
          greetingMessage: 'Olá! Digite 1 para boletos.',
          startWork: '08:00',
          endWork: '18:00',
          absenceMessage: 'Voltamos às 8h.',
          nps: true,
          encouragingMessage: '',
          ratingQuestion: '',
          url: 'https://atende.dev/financeiro',
        },
      },
    ]);
    expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ id: 7, name: 'Financeiro' }));
  });

  it('edits the rating question with the survey on: the default of the language, checked before sending', async () => {
    const queue = { id: 3, name: 'Suporte', color: '#1976d2', greetingMessage: '', startWork: '', endWork: '', absenceMessage: '', nps: false, encouragingMessage: '', url: '' };
    const { calls } = mockFetch(route('PUT', '/queue/3', (c) => ({ body: { id: 3, ...(c.body as object) } })));
    const { onClose } = open({ queue });
    expect(screen.queryByLabelText('Pergunta de avaliação')).toBeNull(); // survey off
    await userEvent.click(screen.getByRole('switch', { name: 'Pesquisa de satisfação (NPS)' }));
    const question = screen.getByLabelText('Pergunta de avaliação');
    await userEvent.type(question, 'Gostou? Responda sim ou não');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(alerts()).toEqual(['Valor inválido']);
    expect(calls).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Usar a pergunta padrão' }));
    expect(question).toHaveValue('Como você avalia o nosso atendimento? Responda 1 (insatisfeito), 2 (satisfeito) ou 3 (muito satisfeito).');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls[0]).toMatchObject({
      method: 'PUT',
      url: '/queue/3',
      body: { nps: true, ratingQuestion: 'Como você avalia o nosso atendimento? Responda 1 (insatisfeito), 2 (satisfeito) ou 3 (muito satisfeito).' },
    });
  });

  it('starts a new queue on a colour no other queue has', () => {
    mockFetch();
    open({ takenColors: ['#b71c1c', '#D32F2F'] });
    expect(screen.getByLabelText('Código da cor')).toHaveValue('#f44336');
  });

  it('updates, and shows the server’s colour conflict as a toast', async () => {
    const queue = { id: 3, name: 'Suporte', color: '#1976d2', greetingMessage: '', startWork: '', endWork: '', absenceMessage: '', nps: false, encouragingMessage: '', url: '' };
    const { calls } = mockFetch(route('PUT', '/queue/3', { status: 409, body: { error: 'ERR_QUEUE_COLOR_ALREADY_EXISTS' } }));
    const { onClose } = open({ queue });
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(toastStore.getSnapshot().map((x) => x.text)).toEqual(['Esta cor já está em uso, escolha outra.']));
    expect(calls[0]).toMatchObject({ method: 'PUT', url: '/queue/3', body: { name: 'Suporte', color: '#1976d2' } });
    expect(onClose).not.toHaveBeenCalled();
  });
});
