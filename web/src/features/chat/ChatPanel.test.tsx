import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromCallback, fromPromise } from 'xstate';
import type { ReactNode } from 'react';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import { SessionProvider, useSession } from '../../app/session';
import { RealtimeProvider } from '../../app/realtime';
import { sessionMachine } from '../../machines/session.machine';
import { socketMachine } from '../../machines/socket.machine';
import { toastStore } from '../../components/toast/toastStore';
import type { AuthResponse, Message, Ticket } from '../../api/types';
import ChatPanel from './ChatPanel';

const signedIn = sessionMachine.provide({
  guards: { hasStoredToken: () => true },
  actors: {
    refresh: fromPromise<AuthResponse>(async () => ({
      token: 't',
      user: { id: 1, name: 'Admin', email: 'admin@atende.dev', profile: 'admin', companyId: 1, queues: [] },
    })),
  },
});

const ticket: Ticket = {
  id: 12,
  status: 'open',
  userId: 1,
  contactId: 30,
  contact: { id: 30, name: 'Maria', number: '5565999990000', email: '', extraInfo: [{ id: 1, name: 'CPF', value: '123' }] },
  whatsappId: 4,
  channel: 'whatsapp',
  unreadMessages: 0,
  updatedAt: '2026-01-01T00:00:00Z',
};
const mine: Message = { id: 71, ticketId: 12, body: 'Seu boleto', fromMe: true, ack: 1, createdAt: '2026-11-24T12:30:00Z' };

// The server's side of the socket: the test sends events through it.
let serverSend: ((e: { type: 'conn.event'; name: 'ticket'; payload: unknown }) => void) | null = null;
const socket = socketMachine.provide({
  actors: {
    connection: fromCallback(({ sendBack }) => {
      serverSend = sendBack;
      sendBack({ type: 'conn.connected' });
      return () => {};
    }),
    refreshToken: fromPromise(async () => {}),
  },
});

function SignedIn({ children }: { children: ReactNode }) {
  return useSession().user ? children : null;
}

function renderPanel() {
  return renderWithProviders(
    <SessionProvider machine={signedIn}>
      <RealtimeProvider active machine={socket}>
        <SignedIn>
          <ChatPanel ticketId={12} />
        </SignedIn>
      </RealtimeProvider>
    </SessionProvider>,
    '/tickets/12',
  );
}

function serve() {
  return mockFetch(
    route('GET', '/messages/12', { body: { messages: [mine], hasMore: false, ticket } }),
    route('DELETE', '/tickets/12', { status: 204 }),
    route('DELETE', '/messages/71', { status: 204 }),
    route('GET', /\/(tags|queues|users|quickAnswers|quick-answers)/, { body: [] }),
  );
}

describe('ChatPanel', () => {
  beforeEach(() => {
    toastStore.clear();
    serverSend = null;
  });

  it('opens the contact drawer on demand and remembers the choice', async () => {
    serve();
    const first = renderPanel();
    const toggle = await screen.findByRole('button', { name: 'Dados do contato' });
    // Closed at first, even on a wide screen: the conversation keeps its width.
    expect(screen.queryByRole('complementary', { name: 'Dados do contato' })).toBeNull();
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(toggle);
    expect(await screen.findByRole('complementary', { name: 'Dados do contato' })).toBeInTheDocument();
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    first.unmount();

    renderPanel();
    expect(await screen.findByRole('complementary', { name: 'Dados do contato' })).toBeInTheDocument();
    await userEvent.click(within(screen.getByRole('complementary', { name: 'Dados do contato' })).getByRole('button', { name: 'Fechar' }));
    expect(screen.queryByRole('complementary', { name: 'Dados do contato' })).toBeNull();
    expect(window.localStorage.getItem('chat.contactDrawer')).toBe('closed');
  });

  it('on a narrow screen, where it covers the conversation, opens the drawer only when asked', async () => {
    window.localStorage.setItem('chat.contactDrawer', 'open');
    const real = window.matchMedia;
    window.matchMedia = ((query: string) => ({ ...real(query), matches: query.includes('max-width'), media: query })) as typeof window.matchMedia;
    try {
      serve();
      renderPanel();
      const toggle = await screen.findByRole('button', { name: 'Dados do contato' });
      expect(screen.queryByRole('complementary', { name: 'Dados do contato' })).toBeNull();
      await userEvent.click(toggle);
      expect(await screen.findByRole('complementary', { name: 'Dados do contato' })).toBeInTheDocument();
      await userEvent.click(toggle);
      // The wide screen's remembered choice is left as it was.
      expect(window.localStorage.getItem('chat.contactDrawer')).toBe('open');
    } finally {
      window.matchMedia = real;
    }
  });

  it('toasts a deleted ticket once, though the answer and the socket both report it', async () => {
    serve();
    renderPanel();
    await userEvent.click(await screen.findByRole('button', { name: 'Excluir' }));
    const dialog = await screen.findByRole('dialog', { name: 'Excluir atendimento?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Excluir' }));
    await vi.waitFor(() => expect(toastStore.getSnapshot()).toHaveLength(1));
    expect(serverSend).not.toBeNull();
    act(() => serverSend!({ type: 'conn.event', name: 'ticket', payload: { action: 'delete', ticketId: 12 } }));
    expect(toastStore.getSnapshot().map((t) => [t.kind, t.text])).toEqual([['success', 'Atendimento excluído com sucesso.']]);
  });

  it('deletes one of its own messages naming its ticket', async () => {
    const { calls } = serve();
    renderPanel();
    const item = await screen.findByTestId('message-71');
    // The bubble's actions show on hover (CSS, which jsdom does not apply).
    await userEvent.click(within(item).getByRole('button', { name: 'Apagar', hidden: true }));
    const dialog = await screen.findByRole('dialog', { name: 'Apagar mensagem?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Excluir' }));
    await vi.waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url)).toEqual([expect.stringMatching(/\/messages\/71\?ticketId=12$/)]);
    expect(toastStore.getSnapshot()).toEqual([]);
  });
});
