import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { toastStore } from '../../components/toast/toastStore';
import { renderPage } from '../users/pageHarness';
import type { Connection, Contact } from '../../api/types';
import { NewTicketModal } from './NewTicketModal';
import { reachingConnection } from './reach';

const conn = (id: number, channel: string, more: Partial<Connection> = {}): Connection => ({
  id,
  name: `${channel} ${id}`,
  status: 'CONNECTED',
  channel,
  ...more,
});
// The demo tenant's shape: the web chat is the default connection.
const connections = [conn(1, 'socket', { isDefault: true }), conn(2, 'whatsapp', { status: 'DISCONNECTED' }), conn(3, 'whatsapp')];
const maria: Contact = { id: 40, name: 'Maria', number: '5565999990001', email: '' };

describe('NewTicketModal', () => {
  beforeEach(() => toastStore.clear());

  it('opens a phone contact on a connection that reaches phones, not on the default web chat', async () => {
    const { calls } = mockFetch(
      route('GET', '/contacts', { body: { contacts: [maria], hasMore: false } }),
      route('GET', '/whatsapp/', { body: connections }),
      route('POST', '/tickets', { status: 201, body: { id: 90, status: 'open', contactId: 40, unreadMessages: 0, updatedAt: '2026-11-22T12:00:00Z' } }),
    );
    renderPage(<NewTicketModal open onClose={() => {}} />);
    await userEvent.type(await screen.findByRole('textbox'), 'Mar');
    const list = screen.getByRole('listbox');
    await userEvent.click(await within(list).findByRole('option', { name: /Maria/ }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ contactId: 40, userId: 1, status: 'open', whatsappId: 3 }]);
  });

  it('says so when no connection can reach the contact, and opens nothing', async () => {
    const { calls } = mockFetch(
      route('GET', '/contacts', { body: { contacts: [maria], hasMore: false } }),
      route('GET', '/whatsapp/', { body: [conn(1, 'socket', { isDefault: true })] }),
    );
    renderPage(<NewTicketModal open onClose={() => {}} />);
    await userEvent.type(await screen.findByRole('textbox'), 'Mar');
    await userEvent.click(await within(screen.getByRole('listbox')).findByRole('option', { name: /Maria/ }));
    await waitFor(() => expect(toastStore.getSnapshot().map((x) => x.text)).toEqual(['Nenhuma conexão alcança Maria: adicione uma conexão do canal deste contato.']));
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it.each([
    ['5565999990001', 3],
    ['webchat:CyRS9', 1],
    ['fb:2400', 4],
    ['ig:IGS1', null],
    ['tg:77', null],
  ] as const)('reaches %s through connection %s', (number, want) => {
    expect(reachingConnection(number, [...connections, conn(4, 'facebook')])).toBe(want);
  });

  it('keeps the default connection when it reaches the contact', () => {
    expect(reachingConnection('5565999990001', [conn(5, 'waba'), conn(6, 'whatsapp', { isDefault: true, status: 'DISCONNECTED' })])).toBe(6);
  });
});
