import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import { ChatPopover } from './ChatPopover';

const chat = (unreads: number, lastMessage = '') => ({
  id: 9,
  uuid: 'u9',
  title: '',
  ownerId: 2,
  lastMessage,
  createdAt: '2026-11-26T10:00:00Z',
  updatedAt: lastMessage ? '2026-11-26T11:00:00Z' : '2026-11-26T10:00:00Z',
  users: [
    { chatId: 9, userId: 1, unreads, user: { id: 1, name: 'Admin' } },
    { chatId: 9, userId: 2, unreads: 0, user: { id: 2, name: 'Bruno Atendente' } },
  ],
});

describe('ChatPopover', () => {
  beforeEach(() => clearResources());

  it('shakes with a badge when a chat event brings an unread message, lists the chat, and calms when it is read', async () => {
    mockFetch(route('GET', '/chats/', { body: { records: [chat(0)], count: 1, hasMore: false } }));
    const server = renderPage(<ChatPopover />, { profile: 'user' });
    const button = await screen.findByRole('button', { name: 'Chat interno: 0 conversa não lida' });
    expect(screen.queryByTestId('chat-unread-badge')).toBeNull();
    expect(button.querySelector('[data-attention="true"]')).toBeNull();

    server.send('chat', {
      action: 'new-message',
      newMessage: { id: 5, chatId: 9, senderId: 2, message: 'Oi!', createdAt: '2026-11-26T11:00:00Z' },
      chat: chat(1, 'Oi!'),
    });
    const unread = await screen.findByRole('button', { name: 'Chat interno: 1 conversa não lida' });
    expect(screen.getByTestId('chat-unread-badge')).toHaveTextContent('1');
    expect(unread.querySelector('[data-attention="true"]')).not.toBeNull();
    await userEvent.click(unread);
    const popover = await screen.findByRole('dialog', { name: 'Chat interno' });
    expect(within(popover).getByText('Bruno Atendente')).toBeInTheDocument();
    expect(within(popover).getByText('Oi!')).toBeInTheDocument();

    server.send('chat', { action: 'update', chat: chat(0, 'Oi!') });
    expect(await screen.findByRole('button', { name: 'Chat interno: 0 conversa não lida' })).toBeInTheDocument();
    expect(screen.queryByTestId('chat-unread-badge')).toBeNull();
  });

  it('ignores a chat that does not list the user (taken out of it)', async () => {
    mockFetch(route('GET', '/chats/', { body: { records: [chat(2, 'x')], count: 1, hasMore: false } }));
    const server = renderPage(<ChatPopover />, { profile: 'user' });
    expect(await screen.findByTestId('chat-unread-badge')).toHaveTextContent('1');
    server.send('chat', { action: 'update', chat: { ...chat(0, 'x'), users: [chat(0).users[1]] } });
    expect(await screen.findByRole('button', { name: 'Chat interno: 0 conversa não lida' })).toBeInTheDocument();
  });
});
