import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import BroadcastsPage from './BroadcastsPage';
import CampaignPage from './CampaignPage';
import { progress, type Campaign } from './api';

const base: Campaign = {
  id: 7,
  kind: 'broadcast',
  name: 'broadcast',
  planName: '',
  status: 'running',
  startAt: '2026-11-27T12:00:00Z',
  total: 3,
  sent: 1,
  errors: 0,
  pending: 2,
  nextSendAt: '2026-11-27T12:00:05Z',
  waitReason: '',
  createdAt: '2026-11-27T12:00:00Z',
};

const contacts = [
  { id: 101, name: 'Maria', number: '5565900000001', email: '' },
  { id: 102, name: 'Sem Zap', number: '5565900000003', email: '' },
];

describe('progress', () => {
  it('is the share of sends with an outcome', () => {
    expect(progress({ total: 4, sent: 1, errors: 1 })).toBe(50);
    expect(progress({ total: 0, sent: 0, errors: 0 })).toBe(100);
  });
});

describe('BroadcastsPage', () => {
  it('sends to picked contacts, answers the section-5 errors, and shows live progress with each contact status', async () => {
    let created = 0;
    const { calls } = mockFetch(
      route('GET', '/campaigns', { body: { campaigns: [] } }),
      route('GET', '/campaigns/credits', { body: { credits: 5 } }),
      route('GET', '/whatsapp/', { body: [{ id: 1, name: 'Vendas', status: 'CONNECTED', channel: 'whatsapp' }] }),
      route('GET', '/tags/list', { body: [] }),
      route('GET', '/contacts', { body: { contacts, hasMore: false } }),
      route('POST', '/campaigns', (c) => {
        const body = c.body as { sendFrom: number[] };
        if (!body.sendFrom.length) return { status: 400, body: { error: 'ERR_NO_CHANNEL_SELECTED' } };
        created++;
        return { status: 201, body: base };
      }),
      route('GET', '/campaigns/7/sends', {
        body: {
          sends: [
            { id: 1, contactId: 101, contactName: 'Maria', number: '5565900000001', seq: 1, connectionId: 1, status: 'sent', error: '', sentAt: '' },
            { id: 2, contactId: 102, contactName: 'Sem Zap', number: '5565900000003', seq: 1, connectionId: 1, status: 'error', error: 'ERR_WAPP_INVALID_CONTACT: not on WhatsApp', sentAt: '' },
          ],
          hasMore: false,
        },
      }),
    );
    const server = renderPage(<BroadcastsPage />, { profile: 'admin' });
    expect(await screen.findByTestId('credits')).toHaveTextContent('Créditos: 5');
    await screen.findByRole('checkbox', { name: /Maria/ });
    await userEvent.click(screen.getByRole('button', { name: 'Selecionar todos' }));
    expect(screen.getByTestId('picked')).toHaveTextContent('2 selecionados');
    await userEvent.type(screen.getByLabelText('Mensagem'), 'Promoção!');
    await userEvent.click(screen.getByRole('button', { name: 'Disparar' }));
    await waitFor(() => expect(toastStore.getSnapshot().map((i) => i.text)).toContain('Nenhum canal selecionado.'));
    expect(created).toBe(0);

    await screen.findByRole('option', { name: 'Vendas' });
    await userEvent.selectOptions(screen.getByLabelText('Conexão'), '1');
    await userEvent.click(screen.getByRole('button', { name: 'Disparar' }));
    const card = await screen.findByTestId('campaign-7');
    const post = calls.filter((c) => c.method === 'POST').pop();
    expect(post?.body).toMatchObject({ kind: 'broadcast', sendFrom: [1], contactIds: [101, 102], messages: [{ seq: 1, body: 'Promoção!' }] });
    expect(within(card).getByRole('progressbar')).toHaveAttribute('value', '33');

    // Progress over the socket: the bar reaches the end, one contact in error.
    server.send('campaign', { action: 'update', campaign: { ...base, status: 'finished', sent: 2, errors: 1, pending: 0 } });
    await waitFor(() => expect(screen.getByTestId('campaign-7')).toHaveAttribute('data-status', 'finished'));
    expect(within(screen.getByTestId('campaign-7')).getByRole('progressbar')).toHaveAttribute('value', '100');
    await userEvent.click(within(screen.getByTestId('campaign-7')).getByRole('button', { name: 'Contatos' }));
    const bad = await screen.findByTestId('send-5565900000003');
    expect(bad).toHaveAttribute('data-status', 'error');
    expect(bad).toHaveTextContent('Erro');
  });
});

describe('CampaignPage', () => {
  it('previews a CSV with its bad lines, shows field errors, and creates the campaign', async () => {
    const campaign: Campaign = { ...base, id: 9, kind: 'campaign', name: 'Black Friday', status: 'scheduled', total: 2, sent: 0, pending: 2 };
    const { calls } = mockFetch(
      route('GET', '/campaigns', { body: { campaigns: [] } }),
      route('GET', '/whatsapp/', { body: [{ id: 1, name: 'Vendas', status: 'CONNECTED', channel: 'whatsapp' }] }),
      route('GET', '/tags/list', { body: [] }),
      route('GET', '/contacts', { body: { contacts, hasMore: false } }),
      route('POST', '/campaigns/csv', {
        body: {
          contacts: [
            { number: '5565900000001', name: 'Maria', params: ['fatura'] },
            { number: '5565900000077', name: 'Nova', params: ['boleto'] },
          ],
          errors: [{ line: 3, message: 'CSV format wrong', text: 'x;"' }],
        },
      }),
      route('POST', '/campaigns', (c) => {
        const body = c.body as { name: string };
        if (!body.name) return { status: 400, body: { error: 'ERR_VALIDATION', fields: { name: 'Required', startAt: 'Required' } } };
        return { status: 201, body: campaign };
      }),
    );
    renderPage(<CampaignPage />, { profile: 'admin' });
    await userEvent.click(await screen.findByRole('button', { name: 'Nova campanha' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nova campanha' });
    const file = new File(['numero;nome;p1\n5565900000001;Maria;fatura\n'], 'c.csv', { type: 'text/csv' });
    await userEvent.upload(within(dialog).getByLabelText(/^Importar CSV/), file);
    expect(await within(dialog).findByTestId('csv-preview')).toHaveTextContent('2 contatos prontos para importar');
    expect(within(dialog).getByTestId('csv-error-3')).toHaveTextContent('Linha 3: Formato do CSV incorreto');

    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await within(dialog).findAllByText('Obrigatório')).toHaveLength(2);

    await userEvent.type(within(dialog).getByLabelText(/^Nome/), 'Black Friday');
    await userEvent.type(within(dialog).getByLabelText(/^Início/), '2099-11-27T09:00');
    await userEvent.type(within(dialog).getByLabelText('Mensagem 1'), 'Sua @param1');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Adicionar mensagem' }));
    await userEvent.type(within(dialog).getByLabelText('Mensagem 2'), 'Obrigado');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await screen.findByTestId('campaign-9')).toHaveAttribute('data-status', 'scheduled');
    const post = calls.filter((c) => c.method === 'POST' && c.url.startsWith('/campaigns?') === false && c.url === '/campaigns').pop();
    expect(post?.body).toMatchObject({
      kind: 'campaign',
      name: 'Black Friday',
      nameFilter: '%',
      channelFilter: '%',
      startAt: '2099-11-27T09:00',
      csv: [{ number: '5565900000001', params: ['fatura'] }, { number: '5565900000077', params: ['boleto'] }],
      messages: [
        { seq: 1, body: 'Sua @param1' },
        { seq: 2, body: 'Obrigado' },
      ],
    });
  });
});
