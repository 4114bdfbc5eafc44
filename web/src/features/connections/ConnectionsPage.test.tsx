import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import type { Connection } from '../../api/types';
import ConnectionsPage from './ConnectionsPage';

const conn = (id: number, more: Partial<Connection> = {}): Connection => ({
  id,
  name: `Conexão ${id}`,
  number: '',
  status: 'DISCONNECTED',
  channel: 'whatsapp',
  isDefault: id === 1,
  outChannel: false,
  qrcode: '',
  updatedAt: '2026-11-22T12:00:00Z',
  ...more,
});

describe('ConnectionsPage', () => {
  beforeEach(() => {
    clearResources();
    toastStore.clear();
  });

  it('follows the session live: QR dialog from whatsappSession events, closed once CONNECTED', async () => {
    const { calls } = mockFetch(
      route('GET', '/whatsapp/', { body: [conn(2, { status: 'OPENING' }), conn(1, { status: 'CONNECTED', number: '5565' })] }),
      route('POST', '/whatsappsession/2', { body: conn(2, { status: 'OPENING' }) }),
    );
    const server = renderPage(<ConnectionsPage />);
    expect(await screen.findByTestId('connection-card-1')).toHaveTextContent('Padrão');
    expect(screen.getAllByRole('listitem').map((li) => li.getAttribute('data-testid'))).toEqual(['connection-card-1', 'connection-card-2']);

    server.send('whatsappSession', { action: 'update', session: { id: 2, status: 'qrcode', qrcode: '2@first', updatedAt: '2026-11-22T12:01:00Z' } });
    await waitFor(() => expect(screen.getByTestId('connection-status-2')).toHaveAttribute('data-status', 'qrcode'));
    await userEvent.click(within(screen.getByTestId('connection-card-2')).getByRole('button', { name: 'QR Code' }));
    expect(await screen.findByTestId('qr-code')).toHaveAttribute('data-value', '2@first');
    server.send('whatsappSession', { action: 'update', session: { id: 2, status: 'qrcode', qrcode: '2@second' } });
    await waitFor(() => expect(screen.getByTestId('qr-code')).toHaveAttribute('data-value', '2@second'));
    server.send('whatsappSession', { action: 'update', session: { id: 2, status: 'CONNECTED', qrcode: '', number: '5565999' } });
    await waitFor(() => expect(screen.queryByTestId('qr-dialog')).toBeNull());
    expect(screen.getByTestId('connection-card-2')).toHaveTextContent('5565999');

    // A connection made elsewhere arrives as a "whatsapp" event; a new default
    // clears the old label.
    server.send('whatsapp', { action: 'create', whatsapp: conn(3, { isDefault: true, name: 'Nova' }) });
    await waitFor(() => expect(screen.getByTestId('connection-card-3')).toHaveTextContent('Padrão'));
    expect(screen.getByTestId('connection-card-1')).toHaveTextContent('Sem Função Específica');
    server.send('whatsapp', { action: 'delete', whatsappId: 3 });
    await waitFor(() => expect(screen.queryByTestId('connection-card-3')).toBeNull());
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it("asks before wiping a connection's credentials; cancelling sends nothing", async () => {
    const { calls } = mockFetch(
      route('GET', '/whatsapp/', { body: [conn(1, { status: 'CONNECTED', number: '5565' })] }),
      route('DELETE', '/whatsappcreds/1', { body: conn(1, { status: 'DISCONNECTED' }) }),
    );
    renderPage(<ConnectionsPage />);
    const card = await screen.findByTestId('connection-card-1');
    await userEvent.click(within(card).getByRole('button', { name: 'Apagar credenciais' }));
    const dialog = await screen.findByRole('dialog', { name: 'Apagar credenciais?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancelar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it('keeps a QR code that arrived before the create answer', async () => {
    mockFetch(
      route('GET', '/whatsapp/', { body: [] }),
      route('GET', '/queue', { body: [] }),
      route('POST', '/whatsapp', { status: 201, body: conn(9, { status: 'OPENING', updatedAt: '2026-11-22T12:00:00Z' }) }),
    );
    const server = renderPage(<ConnectionsPage />);
    await screen.findByText('Nenhuma conexão cadastrada.');
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar WhatsApp' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nova conexão WhatsApp' });
    await userEvent.type(within(dialog).getByLabelText('Nome'), 'Zap');
    server.send('whatsappSession', { action: 'update', session: { id: 9, status: 'qrcode', qrcode: '2@early', updatedAt: '2026-11-22T12:00:01Z' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(screen.getByTestId('connection-status-9')).toHaveAttribute('data-status', 'qrcode'));
    await userEvent.click(within(screen.getByTestId('connection-card-9')).getByRole('button', { name: 'QR Code' }));
    expect(await screen.findByTestId('qr-code')).toHaveAttribute('data-value', '2@early');
  });

  it('asks before deleting and shows the server refusal as a toast', async () => {
    const { calls } = mockFetch(
      route('GET', '/whatsapp/', { body: [conn(1), conn(2)] }),
      route('DELETE', '/whatsapp/1', { status: 400, body: { error: 'ERR_NO_OTHER_WHATSAPP' } }),
      route('DELETE', '/whatsapp/2', { status: 204 }),
    );
    renderPage(<ConnectionsPage />);
    const card1 = await screen.findByTestId('connection-card-1');
    await userEvent.click(within(card1).getByRole('button', { name: 'Excluir' }));
    const dialog = await screen.findByRole('dialog', { name: 'Excluir conexão?' });
    expect(calls.filter((c) => c.method === 'DELETE')).toEqual([]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Excluir' }));
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((x) => x.text)).toEqual(['Deve haver pelo menos uma conexão de WhatsApp padrão.']),
    );
    expect(screen.getByTestId('connection-card-1')).toBeInTheDocument();
    await userEvent.click(within(screen.getByTestId('connection-card-2')).getByRole('button', { name: 'Excluir' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Excluir' }));
    await waitFor(() => expect(screen.queryByTestId('connection-card-2')).toBeNull());
  });

  it('sends the Telegram form and shows the backend error as a toast', async () => {
    const { calls } = mockFetch(
      route('GET', '/whatsapp/', { body: [] }),
      route('POST', '/telegram', { status: 400, body: { error: 'ERR_VALIDATION', message: 'token' } }),
    );
    renderPage(<ConnectionsPage />);
    await screen.findByText('Nenhuma conexão cadastrada.');
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar Telegram' }));
    const dialog = await screen.findByRole('dialog', { name: 'Conectar bot do Telegram' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Conectar' }));
    expect(within(dialog).getAllByRole('alert')).toHaveLength(2);
    await userEvent.type(within(dialog).getByLabelText(/^Nome/), 'Bot');
    await userEvent.type(within(dialog).getByLabelText(/^Token do bot/), '123:abc');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Conectar' }));
    await waitFor(() => expect(toastStore.getSnapshot()).toHaveLength(1));
    expect(calls.find((c) => c.method === 'POST')).toEqual({ method: 'POST', url: '/telegram', body: { name: 'Bot', token: '123:abc' } });
  });

  it('offers WhatsApp, WABA (manual and embedded signup), Facebook, Instagram and Telegram; WABA is the manual form', async () => {
    const { calls } = mockFetch(
      route('GET', '/whatsapp/', { body: [] }),
      route('POST', '/wacloudapi', { body: conn(4, { channel: 'waba', status: 'CONNECTED' }) }),
    );
    renderPage(<ConnectionsPage />);
    await screen.findByText('Nenhuma conexão cadastrada.');
    const header = screen.getByRole('heading', { name: 'Conexões' }).parentElement as HTMLElement;
    expect(within(header).getAllByRole('button').map((b) => b.textContent)).toEqual([
      'Adicionar WhatsApp',
      'Adicionar WABA',
      'WABA (cadastro incorporado)',
      'Adicionar Facebook',
      'Adicionar Instagram',
      'Adicionar Telegram',
    ]);
    await userEvent.click(screen.getByRole('button', { name: 'Adicionar WABA' }));
    const dialog = await screen.findByRole('dialog', { name: 'Conectar WhatsApp Business API' });
    expect(within(dialog).getByTestId('cloud-intro')).toHaveTextContent('Cadastre um número já configurado no Gerenciador do WhatsApp da Meta');
    expect(within(dialog).queryByTestId('cloud-note')).toBeNull();
    const phoneId = within(dialog).getByLabelText(/^ID do número/);
    expect(phoneId).toHaveAccessibleDescription(/não o número em si/);
    await userEvent.type(within(dialog).getByLabelText(/^ID da conta WABA/), '1022');
    await userEvent.type(phoneId, '106540352242922');
    await userEvent.type(within(dialog).getByLabelText(/^Número de telefone/), '+55 65 3333-0000');
    await userEvent.type(within(dialog).getByLabelText(/^Nome verificado/), 'Clínica');
    await userEvent.type(within(dialog).getByLabelText(/^Token de acesso/), 'EAAG');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Conectar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.method === 'POST')).toEqual({
      method: 'POST',
      url: '/wacloudapi',
      body: { currWabaId: '1022', currWabaPhoneId: '106540352242922', currPhoneNumber: '+55 65 3333-0000', currVerifiedName: 'Clínica', currWabaToken: 'EAAG' },
    });
  });

  it('is read-only without connections:manage', async () => {
    mockFetch(route('GET', '/whatsapp/', { body: [conn(1, { status: 'qrcode' })] }));
    renderPage(<ConnectionsPage />, { profile: 'user' });
    const card = await screen.findByTestId('connection-card-1');
    expect(within(card).queryAllByRole('button')).toEqual([]);
    expect(screen.queryByRole('button', { name: 'Adicionar WhatsApp' })).toBeNull();
  });
});
