import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Providers, renderWithProviders } from '../../test/render';
import type { Connection } from '../../api/types';
import { ConnectionCard, sessionActions } from './ConnectionCard';
import { QrDialog } from './QrDialog';
import { formatCuiaba } from '../../app/format';
import { applySession, needsAttention, roleOf } from './status';

const base: Connection = {
  id: 7,
  name: 'Vendas',
  number: '5565999990000',
  status: 'CONNECTED',
  channel: 'whatsapp',
  isDefault: false,
  outChannel: false,
  updatedAt: '2026-11-22T12:00:00Z',
};

function card(c: Partial<Connection> = {}, manage = true) {
  const onAction = vi.fn();
  renderWithProviders(<ConnectionCard connection={{ ...base, ...c }} manage={manage} onAction={onAction} />);
  return { onAction, el: screen.getByTestId(`connection-card-${c.id ?? base.id}`) };
}

describe('ConnectionCard', () => {
  it("offers 'Conectar ao hub' only on Meta connections (the server has no hub for the others)", () => {
    card({ id: 1, channel: 'whatsapp' });
    card({ id: 2, channel: 'socket' });
    card({ id: 3, channel: 'telegram' });
    card({ id: 4, channel: 'facebook' });
    card({ id: 5, channel: 'instagram' });
    card({ id: 6, channel: 'waba' });
    for (const id of [1, 2, 3]) expect(within(screen.getByTestId(`connection-card-${id}`)).queryByRole('button', { name: 'Conectar ao hub' })).toBeNull();
    for (const id of [4, 5, 6]) expect(within(screen.getByTestId(`connection-card-${id}`)).getByRole('button', { name: 'Conectar ao hub' })).toBeInTheDocument();
  });

  it("makes 'Apagar credenciais' a secondary action, placed last (the page confirms it)", async () => {
    const { onAction, el } = card({ status: 'CONNECTED' });
    const buttons = within(el).getAllByRole('button').map((b) => b.textContent);
    const wipe = within(el).getByRole('button', { name: 'Apagar credenciais' });
    const disconnect = within(el).getByRole('button', { name: 'Desconectar' });
    // Drawn like its neighbours, not as the card's red primary button.
    expect(getComputedStyle(wipe).backgroundColor).toBe(getComputedStyle(disconnect).backgroundColor);
    expect(wipe.className).toBe(disconnect.className);
    expect(buttons.indexOf('Apagar credenciais')).toBeGreaterThan(buttons.indexOf('Desconectar'));
    await userEvent.click(wipe);
    expect(onAction).toHaveBeenCalledWith('wipe', expect.objectContaining({ id: 7 }));
  });

  it('labels the default, the outbound and the other connections', () => {
    card({ id: 1, isDefault: true, outChannel: true });
    card({ id: 2, outChannel: true });
    card({ id: 3 });
    expect(within(screen.getByTestId('connection-card-1')).getByText('Padrão')).toBeInTheDocument();
    expect(within(screen.getByTestId('connection-card-2')).getByText('Disparo')).toBeInTheDocument();
    expect(within(screen.getByTestId('connection-card-3')).getByText('Sem Função Específica')).toBeInTheDocument();
    expect(roleOf({ isDefault: true, outChannel: true })).toBe('default');
  });

  it('shows the status icon with a tooltip per status', () => {
    const tips: Record<string, string> = {
      CONNECTED: 'Conectado',
      OPENING: 'Conectando…',
      qrcode: 'Aguardando a leitura do QR Code.',
      PAIRING: 'Pareando o aparelho…',
      DISCONNECTED: 'Desconectado: a sessão não está ativa. Tente novamente ou gere um novo QR Code.',
      TIMEOUT: 'Tempo esgotado: o aparelho não respondeu. Verifique a internet do celular.',
      STALLED: 'Sessão travada: reinicie a conexão.',
      bogus: 'Status desconhecido',
    };
    Object.keys(tips).forEach((status, i) => card({ id: 100 + i, status }));
    Object.entries(tips).forEach(([status, tip], i) => {
      const mark = screen.getByTestId(`connection-status-${100 + i}`);
      expect(mark).toHaveAttribute('title', tip);
      expect(mark).toHaveAttribute('aria-label', tip);
      expect(mark).toHaveAttribute('data-status', status);
    });
    expect(needsAttention({ status: 'CONNECTED' })).toBe(false);
    expect(['qrcode', 'PAIRING', 'DISCONNECTED', 'TIMEOUT', 'OPENING', 'STALLED'].every((s) => needsAttention({ status: s }))).toBe(true);
  });

  it('shows the last update in the Cuiabá time zone whatever the browser zone', () => {
    const { el } = card({ updatedAt: '2026-11-22T03:30:00Z' });
    // 03:30 UTC is 23:30 of the day before in Cuiabá (UTC-4 all year).
    expect(within(el).getByText('Última atualização: 21/11/2026 23:30')).toBeInTheDocument();
    expect(formatCuiaba('2026-07-01T12:05:00.123456Z')).toBe('01/07/2026 08:05');
    expect(formatCuiaba('not a date')).toBe('');
    expect(within(el).getByText('5565999990000')).toBeInTheDocument();
    expect(within(el).getByRole('img', { name: 'WhatsApp' })).toBeInTheDocument();
  });

  it('offers the buttons of each status and reports the clicks', async () => {
    const { onAction, el } = card({ status: 'qrcode' });
    expect(within(el).getAllByRole('button').map((b) => b.textContent || b.getAttribute('aria-label'))).toEqual([
      'QR Code',
      'Novo QR Code',
      'Desconectar',
      'Editar',
      'Excluir',
    ]);
    await userEvent.click(within(el).getByRole('button', { name: 'QR Code' }));
    await userEvent.click(within(el).getByRole('button', { name: 'Excluir' }));
    expect(onAction.mock.calls.map((c) => c[0])).toEqual(['qrcode', 'delete']);
    expect(sessionActions('CONNECTED')).toEqual(['disconnect', 'wipe']);
    expect(sessionActions('DISCONNECTED')).toEqual(['retry', 'newQr', 'wipe']);
    expect(sessionActions('TIMEOUT')).toEqual(['retry', 'newQr', 'wipe']);
    expect(sessionActions('OPENING')).toEqual(['disconnect']);
  });

  it('shows no buttons without connections:manage', () => {
    const { el } = card({ status: 'qrcode' }, false);
    expect(within(el).queryAllByRole('button')).toEqual([]);
  });
});

describe('QrDialog', () => {
  it('waits for a code, draws it at 256, follows new codes and closes once connected', () => {
    const onClose = vi.fn();
    const c = { ...base, status: 'OPENING', qrcode: '' };
    const view = (x: Connection) => (
      <Providers>
        <QrDialog connection={x} onClose={onClose} />
      </Providers>
    );
    const { rerender } = render(view(c));
    expect(screen.getByTestId('qr-dialog')).toHaveTextContent('Aguardando o QR Code');
    expect(screen.queryByTestId('qr-code')).toBeNull();
    // A whatsappSession event brings the code.
    const next = applySession([c], { id: 7, status: 'qrcode', qrcode: '2@abc,def,ghi' })[0];
    rerender(view(next));
    const svg = screen.getByTestId('qr-code');
    expect(svg).toHaveAttribute('width', '256');
    expect(svg).toHaveAttribute('data-value', '2@abc,def,ghi');
    const first = svg.querySelector('path')?.getAttribute('d');
    expect(first).toMatch(/^M\d+ \d+h1v1h-1z/);
    rerender(view({ ...next, qrcode: '2@other' }));
    expect(screen.getByTestId('qr-code').querySelector('path')?.getAttribute('d')).not.toBe(first);
    expect(onClose).not.toHaveBeenCalled();
    rerender(view({ ...next, status: 'CONNECTED', qrcode: '' }));
    expect(onClose).toHaveBeenCalled();
  });

  it('closes once the session qrcode becomes empty after having had one, whatever the status', () => {
    const onClose = vi.fn();
    const view = (x: Connection) => (
      <Providers>
        <QrDialog connection={x} onClose={onClose} />
      </Providers>
    );
    // Opened before the first code: an empty code does not close it.
    const { rerender } = render(view({ ...base, status: 'OPENING', qrcode: '' }));
    rerender(view({ ...base, status: 'qrcode', qrcode: '' }));
    expect(onClose).not.toHaveBeenCalled();
    rerender(view({ ...base, status: 'qrcode', qrcode: '2@code' }));
    expect(screen.getByTestId('qr-code')).toHaveAttribute('data-value', '2@code');
    expect(onClose).not.toHaveBeenCalled();
    // Scanned: the server clears the code while the phone pairs, before CONNECTED.
    rerender(view({ ...base, status: 'PAIRING', qrcode: '' }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes when the codes run out (TIMEOUT clears the qrcode)', () => {
    const onClose = vi.fn();
    const view = (x: Connection) => (
      <Providers>
        <QrDialog connection={x} onClose={onClose} />
      </Providers>
    );
    const { rerender } = render(view({ ...base, status: 'qrcode', qrcode: '2@last' }));
    expect(onClose).not.toHaveBeenCalled();
    rerender(view({ ...base, status: 'TIMEOUT', qrcode: '' }));
    expect(onClose).toHaveBeenCalled();
  });
});

describe('withSession', () => {
  it('lays a newer session state over a row, never an older one', async () => {
    const { withSession } = await import('./status');
    const row = { ...base, status: 'OPENING', updatedAt: '2026-11-22T12:00:00.000001Z' };
    const newer = { id: 7, status: 'qrcode', qrcode: '2@x', updatedAt: '2026-11-22T12:00:01Z' };
    const older = { id: 7, status: 'DISCONNECTED', qrcode: '', updatedAt: '2026-11-22T11:59:00Z' };
    expect(withSession(row, newer)).toMatchObject({ status: 'qrcode', qrcode: '2@x' });
    expect(withSession(row, older)).toBe(row);
    expect(withSession(row, { ...newer, id: 8 })).toBe(row);
    expect(withSession(row, undefined)).toBe(row);
  });
});
