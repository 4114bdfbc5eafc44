import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { fromPromise } from 'xstate';
import { renderWithProviders } from '../../test/render';
import { mockFetch, route } from '../../test/fetch';
import type { ReactNode } from 'react';
import { SessionProvider, useSession } from '../../app/session';
import { sessionMachine } from '../../machines/session.machine';
import { ChatHeader } from './ChatHeader';
import { toastStore } from '../../components/toast/toastStore';
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

  it('downloads the PDF report from the signed link the server answers', async () => {
    const { calls } = mockFetch(
      route('GET', '/tickets-export-report', { body: { url: '/media/1.sig/1/abc.pdf', name: 'ticket-12.pdf' } }),
    );
    const clicked: { href: string; download: string }[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.getAttribute('href') ?? '', download: this.download });
    });
    renderHeader('whatsapp');
    await userEvent.click(await screen.findByRole('button', { name: 'Relatório PDF' }));
    await vi.waitFor(() => expect(clicked).toEqual([{ href: '/media/1.sig/1/abc.pdf', download: 'ticket-12.pdf' }]));
    const asked = calls.find((c) => c.url.includes('/tickets-export-report'));
    expect(asked && new URL(asked.url, 'http://x').searchParams.get('ticketId')).toBe('12');
    click.mockRestore();
  });

  it('reports a refused PDF with the translated error and downloads nothing', async () => {
    mockFetch(route('GET', '/tickets-export-report', { status: 403, body: { error: 'ERR_NO_PERMISSION' } }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    renderHeader('whatsapp');
    await userEvent.click(await screen.findByRole('button', { name: 'Relatório PDF' }));
    await vi.waitFor(() => expect(toastStore.getSnapshot().map((x) => x.text)).toContain('Você não tem permissão para acessar este recurso.'));
    expect(screen.getByRole('button', { name: 'Relatório PDF' })).toBeEnabled();
    expect(click).not.toHaveBeenCalled();
    click.mockRestore();
  });

  it('reports a blocked video call popout with the translated message and sends no link', async () => {
    const { calls } = mockFetch();
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    renderHeader('whatsapp');
    await userEvent.click(await screen.findByRole('button', { name: 'Chamada de vídeo' }));
    await vi.waitFor(() =>
      expect(toastStore.getSnapshot().map((x) => x.text)).toContain(
        'O navegador bloqueou a janela da chamada de vídeo. Permita pop-ups para este site e tente de novo.',
      ),
    );
    expect(open).toHaveBeenCalledWith('', 'atende-video-call', 'popup,width=800,height=600');
    expect(calls.some((c) => c.url.includes('/video-call'))).toBe(false);
    open.mockRestore();
  });
});
