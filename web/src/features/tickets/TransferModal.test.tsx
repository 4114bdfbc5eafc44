import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route, type Route } from '../../test/fetch';
import { SessionProvider } from '../../app/session';
import { clearResources } from '../../app/resources';
import { sessionMachine } from '../../machines/session.machine';
import { toastStore } from '../../components/toast/toastStore';
import { TransferModal } from './TransferModal';
import type { AuthResponse } from '../../api/types';

// A session restored at start, as a plain attendant (who may choose the connection).
const signedIn = sessionMachine.provide({
  guards: { hasStoredToken: () => true },
  actors: {
    refresh: fromPromise<AuthResponse>(async () => ({
      token: 't',
      user: { id: 7, name: 'Ana', email: 'ana@atende.dev', profile: 'user', companyId: 1, queues: [] },
    })),
  },
});

const reference: Route[] = [
  route('GET', '/users/list', { body: [{ id: 8, name: 'Bruno' }] }),
  route('GET', '/queue', { body: [{ id: 3, name: 'Suporte', color: '#00f' }] }),
];

function renderModal(onSubmit = vi.fn()) {
  renderWithProviders(
    <SessionProvider machine={signedIn}>
      <TransferModal ticketId={5} open onClose={() => {}} onSubmit={onSubmit} />
    </SessionProvider>,
  );
  return onSubmit;
}

describe('TransferModal', () => {
  beforeEach(() => {
    clearResources();
    toastStore.clear();
  });

  it('offers user and queue only, without an error, when the connections cannot be loaded', async () => {
    const { calls } = mockFetch(...reference); // GET /whatsapp/ answers 404
    const onSubmit = renderModal();
    const dialog = await screen.findByRole('dialog');
    await waitFor(() => expect(within(dialog).getByRole('option', { name: 'Suporte' })).toBeInTheDocument());
    await waitFor(() => expect(calls.some((c) => c.url.startsWith('/whatsapp/'))).toBe(true));
    expect(within(dialog).queryByRole('combobox', { name: 'Conexão' })).toBeNull();
    expect(toastStore.getSnapshot()).toEqual([]);

    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: 'Fila' }), 'Suporte');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Transferir' }));
    expect(onSubmit).toHaveBeenCalledWith({ userId: null, queueId: 3, whatsappId: null });
  });

  it('offers the connection choice once connections are listed', async () => {
    mockFetch(...reference, route('GET', '/whatsapp/', { body: [{ id: 1, name: 'Chat do site', status: 'CONNECTED', channel: 'socket' }] }));
    const onSubmit = renderModal();
    const dialog = await screen.findByRole('dialog');
    const conn = await within(dialog).findByRole('combobox', { name: 'Conexão' });
    await userEvent.selectOptions(conn, 'Chat do site');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Transferir' }));
    expect(onSubmit).toHaveBeenCalledWith({ userId: null, queueId: null, whatsappId: 1 });
  });
});
