import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import type { InvitationEvent } from '../../api/types';
import { InvitationCenter, foldInvitation, mergePending } from './InvitationCenter';
import { useLocation } from 'react-router';

// Where shows the router's current path, for the tests that navigate.
function Where() {
  return <span data-testid="where">{useLocation().pathname}</span>;
}

const inv = (ticket: number, extra: Partial<InvitationEvent> = {}): InvitationEvent => ({
  action: 'create',
  to: 1,
  uTo: 'Admin',
  uFrom: 'Ana Atendente',
  userId: 1,
  userFrom: 7,
  contact: 'Maria Cliente',
  dateTime: '2026-11-26T12:00:00Z',
  profilePic: '',
  ticket,
  ticketStatus: 'open',
  ...extra,
});

// signedIn lets the harness's session settle, so the component listens before the
// server sends.
const signedIn = () => act(() => new Promise((r) => setTimeout(r, 50)));

describe('InvitationCenter', () => {
  beforeEach(() => {
    clearResources();
    toastStore.clear();
  });

  it('shows an invitation; accepting calls the server', async () => {
    const { calls } = mockFetch(route('POST', '/ticketinvite/42/accept', { body: { id: 42, status: 'open' } }));
    const server = renderPage(<InvitationCenter />, { profile: 'user', userId: 1 });
    await signedIn();
    server.send('invitation', inv(42));
    const notice = await screen.findByRole('alertdialog', { name: 'Convite para um atendimento' });
    expect(notice).toHaveTextContent('Ana Atendente convidou você para o atendimento de Maria Cliente.');
    await userEvent.click(screen.getByRole('button', { name: 'Aceitar' }));
    await waitFor(() => expect(calls.map((c) => `${c.method} ${c.url}`)).toContain('POST /ticketinvite/42/accept'));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
  });

  it('declining calls the server and drops the notice', async () => {
    const { calls } = mockFetch(route('POST', '/ticketinvite/43/decline', { status: 204 }));
    const server = renderPage(<InvitationCenter />, { profile: 'user', userId: 1 });
    await signedIn();
    server.send('invitation', inv(43));
    await userEvent.click(await screen.findByRole('button', { name: 'Recusar' }));
    await waitFor(() => expect(calls.map((c) => `${c.method} ${c.url}`)).toContain('POST /ticketinvite/43/decline'));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
  });

  it('opens the ticket on the inviter\'s page when the invitee accepts', async () => {
    mockFetch();
    const server = renderPage(
      <>
        <InvitationCenter />
        <Where />
      </>,
      { profile: 'user', userId: 7 },
    );
    await signedIn();
    server.send('invitation', inv(45, { action: 'accept', to: 7, uTo: 'Bruno Atendente' }));
    await waitFor(() => expect(screen.getByTestId('where')).toHaveTextContent('/tickets/45'));
    // Another user's answer moves nobody.
    server.send('invitation', inv(46, { action: 'accept', to: 9 }));
    await act(() => new Promise((r) => setTimeout(r, 50)));
    expect(screen.getByTestId('where')).toHaveTextContent('/tickets/45');
  });

  it('shows the pending invitations the server lists at start (after a reload)', async () => {
    const { calls } = mockFetch(
      route('GET', '/ticketinvite', { body: [inv(51, { uFrom: 'Carla Supervisora' }), inv(50)] }),
      route('POST', '/ticketinvite/51/accept', { body: { id: 51, status: 'open' } }),
    );
    renderPage(<InvitationCenter />, { profile: 'user', userId: 1 });
    const notices = await screen.findAllByRole('alertdialog', { name: 'Convite para um atendimento' });
    expect(notices).toHaveLength(2);
    expect(notices[0]).toHaveTextContent('Carla Supervisora convidou você para o atendimento de Maria Cliente.');
    await userEvent.click(screen.getAllByRole('button', { name: 'Aceitar' })[0]);
    await waitFor(() => expect(calls.map((c) => `${c.method} ${c.url}`)).toContain('POST /ticketinvite/51/accept'));
    await waitFor(() => expect(screen.getAllByRole('alertdialog')).toHaveLength(1));
  });

  it('tells the inviter of an answer', async () => {
    mockFetch();
    const server = renderPage(<InvitationCenter />, { profile: 'user', userId: 7 });
    await signedIn();
    server.send('invitation', inv(44, { action: 'decline', to: 7, uTo: 'Bruno Atendente' }));
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((t) => t.text)).toContain('Bruno Atendente recusou seu convite para o atendimento de Maria Cliente.'),
    );
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });
});

describe('mergePending', () => {
  it('takes the listed ones, keeps newer socket notices, one per ticket', () => {
    const held = [inv(2, { dateTime: '2026-11-26T13:00:00Z', uFrom: 'socket' }), inv(3, { uFrom: 'old' })];
    const listed = [inv(3, { dateTime: '2026-11-26T12:30:00Z', uFrom: 'server' }), inv(1), inv(9, { to: 5 })];
    expect(mergePending(held, listed, 1).map((i) => `${i.ticket}:${i.uFrom}`)).toEqual([
      '2:socket',
      '3:server',
      '1:Ana Atendente',
    ]);
    expect(mergePending([], [], 1)).toEqual([]);
  });
});

describe('foldInvitation', () => {
  it('keeps one notice per ticket, only for the user it is for', () => {
    const list = foldInvitation([], inv(1), 1);
    expect(foldInvitation(list, inv(1, { uFrom: 'Carla' }), 1).map((i) => i.uFrom)).toEqual(['Carla']);
    expect(foldInvitation(list, inv(2, { to: 9 }), 1)).toBe(list);
    expect(foldInvitation(list, inv(2, { action: 'accept' }), 1)).toBe(list);
  });
});
