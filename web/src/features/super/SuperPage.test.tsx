import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import SuperPage from './SuperPage';
import SupportPage from './SupportPage';
import type { Tenant } from '../../api/types';

// fill types by pasting: one input event, fast on a loaded machine.
async function fill(el: HTMLElement, text: string) {
  await userEvent.click(el);
  await userEvent.paste(text);
}

const tenant = (id: number, name: string, extra: Partial<Tenant> = {}): Tenant => ({
  id,
  name,
  createdAt: '2026-11-20T10:00:00Z',
  disabled: false,
  users: 1,
  connections: 0,
  tickets: 0,
  openTickets: 0,
  pendingTickets: 0,
  ...extra,
});

describe('SuperPage', () => {
  beforeEach(() => {
    clearResources();
    toastStore.clear();
  });

  it('lists tenants, creates one with its admin after the form rules, and disables one', async () => {
    let list = [tenant(1, 'Atende Demo', { users: 5, tickets: 7, openTickets: 2, pendingTickets: 3 })];
    const { calls } = mockFetch(
      route('GET', '/tenants', () => ({ body: { tenants: list } })),
      route('POST', '/tenants', (c) => {
        const b = c.body as { name: string };
        if (b.name === 'Atende Demo') return { status: 409, body: { error: 'ERR_TENANT_NAME_DUPLICATED' } };
        const created = tenant(2, b.name);
        list = [...list, created];
        return { status: 201, body: { tenant: created, admin: { id: 9, profile: 'admin' } } };
      }),
      route('PUT', '/tenants/2', (c) => {
        list = list.map((x) => (x.id === 2 ? { ...x, disabled: (c.body as { disabled: boolean }).disabled } : x));
        return { body: list[1] };
      }),
    );
    renderPage(<SuperPage />, { profile: 'super' });
    const demo = await screen.findByTestId('tenant-1');
    expect(within(demo).getAllByRole('cell').map((c) => c.textContent)).toEqual(expect.arrayContaining(['5', '7', '2', '3']));

    await userEvent.click(screen.getByRole('button', { name: 'Nova empresa' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nova empresa' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    expect(within(dialog).getAllByText('Obrigatório').length).toBeGreaterThanOrEqual(4);

    await fill(within(dialog).getByLabelText(/Nome da empresa/), 'Atende Demo');
    await fill(within(dialog).getByLabelText(/Nome do administrador/), 'Maria');
    await fill(within(dialog).getByLabelText(/E-mail do administrador/), 'maria@loja.com');
    await fill(within(dialog).getByLabelText(/Senha do administrador/), 'segredo-forte');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await waitFor(() => expect(toastStore.getSnapshot().map((x) => x.text)).toContain('Já existe uma empresa com este nome.'));

    const name = within(dialog).getByLabelText(/Nome da empresa/);
    await userEvent.clear(name);
    await fill(name, 'Loja Nova');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Salvar' }));
    await screen.findByTestId('tenant-2');
    expect(calls.filter((c) => c.method === 'POST').at(-1)?.body).toEqual({
      name: 'Loja Nova',
      adminName: 'Maria',
      email: 'maria@loja.com',
      password: 'segredo-forte',
    });

    await userEvent.click(screen.getByRole('button', { name: 'Desativar Loja Nova' }));
    const confirm = await screen.findByRole('dialog', { name: 'Desativar empresa' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Desativar Loja Nova' }));
    await waitFor(() => expect(within(screen.getByTestId('tenant-2')).getByText('Desativada')).toBeInTheDocument());
    expect(calls.filter((c) => c.method === 'PUT')).toEqual([{ method: 'PUT', url: '/tenants/2', body: { disabled: true } }]);
  }, 120_000);

  it('asks nothing of the server without tenants:manage', async () => {
    const { calls } = mockFetch();
    renderPage(<SuperPage />, { profile: 'admin' });
    await screen.findByText('Você não tem permissão para acessar este recurso.', { exact: false });
    expect(calls.filter((c) => c.url.startsWith('/tenants'))).toEqual([]);
  });
});

describe('SupportPage', () => {
  beforeEach(() => clearResources());

  it('shows the version, readiness and each node of the cluster', async () => {
    mockFetch(
      route('GET', '/readyz', { body: { status: 'ready' } }),
      route('GET', '/cluster', {
        body: {
          mode: 'cluster',
          node: 'a',
          members: [
            { id: 'a', node: 'atende-1', address: '10.0.0.1:8090', state: 'alive', self: true, version: '6.0.2', actors: { ticket: 4, connection: 1 } },
            { id: 'b', node: 'atende-2', address: '10.0.0.2:8090', state: 'unreachable', self: false, actors: {} },
          ],
        },
      }),
    );
    renderPage(<SupportPage />, { profile: 'admin' });
    expect(await screen.findByText('Versão 6.0.2')).toBeInTheDocument();
    const alive = await screen.findByTestId('node-alive');
    expect(within(alive).getByText('Saudável')).toBeInTheDocument();
    expect(within(alive).getByText('4')).toBeInTheDocument();
    expect(within(screen.getByTestId('node-unreachable')).getByText('Inacessível')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Manual de operação/ })).toHaveAttribute('href', '/docs/');
  });
});
