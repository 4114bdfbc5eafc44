import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromPromise } from 'xstate';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import type { ReactNode } from 'react';
import { SessionProvider, useSession } from '../../app/session';
import { sessionMachine } from '../../machines/session.machine';
import { ChatHeader } from './ChatHeader';
import type { AuthResponse, Ticket } from '../../api/types';

const signedIn = sessionMachine.provide({
  guards: { hasStoredToken: () => true },
  actors: {
    refresh: fromPromise<AuthResponse>(async () => ({
      token: 't',
      user: { id: 7, name: 'Ana', email: 'ana@atende.dev', profile: 'user', companyId: 1, queues: [] },
    })),
  },
});

const ticket = (channel: string): Ticket => ({
  id: 12,
  status: 'open',
  userId: 7,
  contactId: 30,
  contact: { id: 30, name: 'Maria', number: '5565999990000', email: '' },
  whatsappId: 4,
  channel,
  unreadMessages: 0,
  updatedAt: '2026-01-01T00:00:00Z',
});

function SignedIn({ children }: { children: ReactNode }) {
  return useSession().user ? children : null;
}

function renderHeader(channel: string) {
  renderWithProviders(
    <SessionProvider machine={signedIn}>
      <SignedIn>
        <ChatHeader ticket={ticket(channel)} onTicketChanged={() => {}} onToggleContact={() => {}} />
      </SignedIn>
    </SessionProvider>,
  );
}

describe('ChatHeader', () => {
  it('offers the template confirmation on WABA tickets', async () => {
    mockFetch(route('GET', '/wabatemplates', { body: { templates: [] } }));
    renderHeader('waba');
    await userEvent.click(await screen.findByRole('button', { name: 'Enviar template (confirmação)' }));
    expect(await screen.findByRole('dialog', { name: 'Confirmação por template' })).toBeInTheDocument();
    expect(await screen.findByText('Nenhum template aprovado')).toBeInTheDocument();
  });

  it('does not offer it on other channels', async () => {
    mockFetch();
    renderHeader('whatsapp');
    expect(await screen.findByRole('button', { name: 'Histórico' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Enviar template (confirmação)' })).toBeNull();
  });
});
