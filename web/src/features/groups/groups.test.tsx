import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { mockFetch, route } from '../../test/fetch';
import { renderWithProviders } from '../../test/render';
import { renderPage } from '../users/pageHarness';
import GroupsPage from './GroupsPage';
import GroupJoinPage, { navigation } from './GroupJoinPage';
import type { GroupBatch } from './api';

const batch: GroupBatch = {
  id: 4,
  connectionId: 1,
  name: 'Turma',
  root: 1,
  admin1: '5511999990001',
  admin2: '5511999990002',
  count: 3,
  maxParticipants: 50,
  token: 'tok',
  status: 'running',
  created: 0,
  failed: 0,
  joined: 0,
  createdAt: '2026-11-27T12:00:00Z',
  groups: [0, 1, 2].map((seq) => ({ seq, name: `Turma 00${seq + 1}`, status: 'pending' as const, participants: 0, joined: 0 })),
};

// field finds a form field by the start of its label (an error message follows it).
const field = (dialog: HTMLElement, label: string) =>
  within(dialog).getByLabelText(new RegExp('^' + label.replace(/[()]/g, '\\$&')));

describe('GroupsPage', () => {
  it('checks the section-5 fields, uploads the picture, creates the batch and follows its progress', async () => {
    const { calls } = mockFetch(
      route('GET', '/groups', { body: { batches: [] } }),
      route('GET', '/whatsapp/', {
        body: [
          { id: 2, name: 'Site', status: 'CONNECTED', channel: 'socket' },
          { id: 1, name: 'Vendas', status: 'CONNECTED', channel: 'whatsapp' },
        ],
      }),
      route('POST', '/groups/media', { status: 201, body: { mediaPath: '1/p.jpg', mediaType: 'image' } }),
      route('POST', '/groups', (c) => {
        const body = c.body as { admin1: string };
        if (body.admin1.replace(/\D/g, '') === '5511999990009') return { status: 400, body: { error: 'ERR_VALIDATION', fields: { admin2: 'Invalid value' } } };
        return { status: 201, body: batch };
      }),
    );
    const server = renderPage(<GroupsPage />, { profile: 'admin' });
    expect(await screen.findByText('Nenhum lote de grupos ainda.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Novos grupos' }));
    const dialog = await screen.findByRole('dialog', { name: 'Novos grupos' });
    await within(dialog).findByRole('option', { name: 'Vendas' });
    expect(within(dialog).queryByRole('option', { name: 'Site' })).toBeNull();

    // Every field of the Group modal is required.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await within(dialog).findAllByText('Obrigatório')).toHaveLength(7);
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(0);

    await userEvent.type(field(dialog, 'Nome do grupo'), 'Turma');
    await userEvent.type(field(dialog, 'Raiz da sequência (últimos 3 dígitos)'), '1000');
    await userEvent.type(field(dialog, 'Admin 1'), '55 11 99999-0009');
    await userEvent.type(field(dialog, 'Admin 2'), 'abc');
    await userEvent.type(field(dialog, 'Número de grupos sequenciais'), '101');
    await userEvent.type(field(dialog, 'Máximo de participantes por grupo'), '3');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await within(dialog).findAllByText('Valor inválido')).toHaveLength(3);
    expect(within(dialog).getByText('Não é um número')).toBeInTheDocument();
    expect(within(dialog).getByText('Obrigatório')).toBeInTheDocument(); // the picture

    const root = field(dialog, 'Raiz da sequência (últimos 3 dígitos)');
    await userEvent.clear(root);
    await userEvent.type(root, '001');
    const admin2 = field(dialog, 'Admin 2');
    await userEvent.clear(admin2);
    await userEvent.type(admin2, '5511999990002');
    const count = field(dialog, 'Número de grupos sequenciais');
    await userEvent.clear(count);
    await userEvent.type(count, '3');
    const max = field(dialog, 'Máximo de participantes por grupo');
    await userEvent.clear(max);
    await userEvent.type(max, '50');
    await userEvent.upload(field(dialog, 'Imagem do perfil (JPEG)'), new File([new Uint8Array([0xff, 0xd8, 0xff])], 'p.jpg', { type: 'image/jpeg' }));
    // The server's field messages show under their fields.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(await within(dialog).findByText('Valor inválido')).toBeInTheDocument();

    const admin1 = field(dialog, 'Admin 1');
    await userEvent.clear(admin1);
    await userEvent.type(admin1, '5511999990001');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    const card = await screen.findByTestId('batch-4');
    const post = calls.filter((c) => c.method === 'POST' && c.url === '/groups').pop();
    expect(post?.body).toMatchObject({
      name: 'Turma',
      root: '001',
      admin1: '5511999990001',
      admin2: '5511999990002',
      count: 3,
      maxParticipants: 50,
      connectionId: 1,
      mediaPath: '1/p.jpg',
      mediaType: 'image',
    });
    expect(within(card).getByTestId('batch-count')).toHaveTextContent('0/3 criados');
    expect(within(card).getByTestId('join-link')).toHaveTextContent('/groupjoin?b=tok');

    // Progress over the socket: each group as it is created, then the batch done.
    const created = (n: number): GroupBatch => ({
      ...batch,
      created: n,
      status: n === 3 ? 'finished' : 'running',
      groups: batch.groups.map((g) => (g.seq < n ? { ...g, status: 'created', participants: 3, inviteLink: `https://chat.whatsapp.com/g${g.seq}` } : g)),
    });
    server.send('groupBatch', { action: 'update', batch: created(1) });
    await waitFor(() => expect(within(screen.getByTestId('batch-4')).getByTestId('batch-count')).toHaveTextContent('1/3 criados'));
    expect(screen.getByTestId('group-0')).toHaveAttribute('data-status', 'created');
    expect(screen.getByTestId('group-1')).toHaveAttribute('data-status', 'pending');
    server.send('groupBatch', { action: 'update', batch: created(3) });
    await waitFor(() => expect(screen.getByTestId('batch-4')).toHaveAttribute('data-status', 'finished'));
    expect(within(screen.getByTestId('batch-4')).getByTestId('batch-count')).toHaveTextContent('3/3 criados');
    expect(within(screen.getByTestId('batch-4')).getByRole('progressbar')).toHaveAttribute('value', '3');
    expect(screen.getByTestId('group-2')).toHaveTextContent('https://chat.whatsapp.com/g2');
  });
});

describe('GroupJoinPage', () => {
  afterEach(() => vi.restoreAllMocks());

  it('sends the visitor to the invite link the server picked, once', async () => {
    const go = vi.spyOn(navigation, 'go').mockImplementation(() => {});
    const { calls } = mockFetch(route('POST', '/groupjoin/tok', { body: { inviteLink: 'https://chat.whatsapp.com/abc' } }));
    renderWithProviders(<GroupJoinPage />, '/groupjoin?b=tok');
    await waitFor(() => expect(go).toHaveBeenCalledWith('https://chat.whatsapp.com/abc'));
    expect(calls.filter((c) => c.url === '/groupjoin/tok')).toHaveLength(1);
  });

  it('says when every group is full', async () => {
    mockFetch(route('POST', '/groupjoin/tok', { status: 410, body: { error: 'ERR_GROUPS_FULL' } }));
    renderWithProviders(<GroupJoinPage />, '/groupjoin?b=tok');
    expect(await screen.findByRole('alert')).toHaveTextContent('Todos os grupos estão cheios.');
  });
});
