import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route, type Call } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { clearResources } from '../../app/resources';
import type { Connection } from '../../api/types';
import { ConnectionModal, connectionErrors } from './ConnectionModal';

const queues = route('GET', '/queue', {
  body: [
    { id: 11, name: 'Vendas', color: '#00ff00' },
    { id: 12, name: 'Suporte', color: '#0000ff' },
  ],
});

function open(connection: Connection | null = null) {
  const onSaved = vi.fn();
  const onClose = vi.fn();
  renderWithProviders(<ConnectionModal connection={connection} onClose={onClose} onSaved={onSaved} />);
  return { onSaved, onClose };
}

// The multipart form a call sent, as [name, value] pairs (files by name).
function formOf(c: Call): [string, string][] {
  expect(c.body).toBeInstanceOf(FormData);
  return [...(c.body as FormData).entries()].map(([k, v]) => [k, typeof v === 'string' ? v : `file:${(v as File).name}`]);
}

const alerts = () => screen.getAllByRole('alert').map((e) => e.textContent);

describe('ConnectionModal', () => {
  beforeEach(() => {
    toastStore.clear();
    clearResources();
  });

  it('shows the section 5 messages and sends nothing while invalid', async () => {
    const { calls } = mockFetch(queues);
    open();
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(alerts()).toEqual(['Obrigatório']);
    // The field's label holds its message: find it by its start.
    await userEvent.type(screen.getByLabelText(/^Nome/), 'Z');
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(alerts()).toEqual(['Muito curto!']);
    await userEvent.type(screen.getByLabelText(/^Nome/), 'x'.repeat(50));
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    expect(alerts()).toEqual(['Muito longo!']);
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
    expect(connectionErrors({ name: 'Zap', number: '', dailyMax: '5', greetingMessage: '', farewellMessage: '' }, 2)).toEqual({
      greetingMessage: 'validation.required',
    });
    expect(connectionErrors({ name: 'Zap', number: '', dailyMax: '-1', greetingMessage: '', farewellMessage: '' }, 0)).toEqual({
      dailyMax: 'validation.notNumber',
    });
  });

  it('creates the connection as multipart with queues, flags and images', async () => {
    const { calls } = mockFetch(queues, route('POST', '/whatsapp', { status: 201, body: { id: 9, name: 'Vendas', status: 'OPENING', channel: 'whatsapp' } }));
    const { onSaved, onClose } = open();
    await userEvent.type(screen.getByLabelText('Nome'), ' Vendas ');
    await userEvent.type(screen.getByLabelText('Número'), '5565999990000');
    await userEvent.clear(screen.getByLabelText('Limite diário de disparos'));
    await userEvent.type(screen.getByLabelText('Limite diário de disparos'), '150');
    await userEvent.click(screen.getByRole('switch', { name: 'Disparo' }));
    await userEvent.type(screen.getByLabelText('Mensagem de saudação'), 'Olá! 1 vendas 2 suporte');
    await userEvent.type(screen.getByLabelText('Mensagem de despedida'), 'Até logo');
    // The image fields are the app's translated pickers, not the browser's "Choose File".
    expect(screen.getAllByText('Escolher arquivo')).toHaveLength(2);
    await userEvent.upload(screen.getByLabelText('Imagem de saudação'), new File(['png'], 'oi.png', { type: 'image/png' }));
    expect(screen.getByText('oi.png')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: /Nenhuma fila/ }));
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Suporte' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Vendas' }));
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.url).toBe('/whatsapp');
    expect(formOf(post)).toEqual([
      ['name', 'Vendas'],
      ['number', '5565999990000'],
      ['isDefault', 'false'],
      ['outChannel', 'true'],
      ['dailyMax', '150'],
      ['greetingMessage', 'Olá! 1 vendas 2 suporte'],
      ['farewellMessage', 'Até logo'],
      ['queueIds', '[12,11]'],
      ['greetingMedia', 'file:oi.png'],
    ]);
    expect(onSaved).toHaveBeenCalledWith(expect.objectContaining({ id: 9 }));
  });

  it('edits: keeps the values, removes an image, and shows the server refusals', async () => {
    const c: Connection = {
      id: 4,
      name: 'Suporte',
      number: '',
      status: 'CONNECTED',
      channel: 'whatsapp',
      isDefault: true,
      outChannel: false,
      dailyMax: 0,
      greetingMessage: 'Oi',
      farewellMessage: '',
      greetingMediaUrl: '/media/1/a.png?exp=1&sig=x',
      queues: [{ id: 11, name: 'Vendas', color: '#00ff00' }],
    };
    let answer: { status: number; body: unknown } = { status: 400, body: { error: 'ERR_NO_OTHER_WHATSAPP' } };
    const { calls } = mockFetch(queues, route('PUT', '/whatsapp/4', () => answer));
    const { onClose } = open(c);
    expect(screen.getByLabelText('Nome')).toHaveValue('Suporte');
    expect(screen.getByRole('img', { name: 'Imagem de saudação' })).toHaveAttribute('src', c.greetingMediaUrl);
    await userEvent.click(screen.getByRole('switch', { name: 'Padrão' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remover imagem' }));
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((x) => x.text)).toEqual(['Deve haver pelo menos uma conexão de WhatsApp padrão.']),
    );
    expect(onClose).not.toHaveBeenCalled();
    expect(formOf(calls.find((x) => x.method === 'PUT')!)).toEqual(
      expect.arrayContaining([
        ['isDefault', 'false'],
        ['queueIds', '[11]'],
        ['removeGreetingMedia', 'true'],
      ]),
    );
    // A field refusal lands on its field.
    answer = { status: 400, body: { error: 'ERR_VALIDATION', fields: { name: 'Too Long!' } } };
    await userEvent.click(screen.getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(alerts()).toEqual(['Muito longo!']));
  });
});
