import { describe, expect, it } from 'vitest';
import type { InternalChat } from '../../api/types';
import { ChatStore, chatName, unreadsOf } from './store';

const chat = (id: number, updatedAt: string, unreads: Record<number, number>, title = ''): InternalChat => ({
  id,
  uuid: `u${id}`,
  title,
  ownerId: 1,
  lastMessage: '',
  createdAt: updatedAt,
  updatedAt,
  users: Object.entries(unreads).map(([u, n]) => ({
    chatId: id,
    userId: Number(u),
    unreads: n,
    user: { id: Number(u), name: `User ${u}` },
  })),
});

describe('ChatStore', () => {
  it('loads every page, newest activity first', async () => {
    const pages = [
      { records: [chat(1, '2026-11-26T10:00:00Z', { 1: 0, 2: 0 })], count: 2, hasMore: true },
      { records: [chat(2, '2026-11-26T11:00:00Z', { 1: 3, 2: 0 })], count: 2, hasMore: false },
    ];
    const asked: number[] = [];
    const s = new ChatStore({ list: async (_q, page = 1) => (asked.push(page), pages[page - 1]) });
    await s.load();
    expect(asked).toEqual([1, 2]);
    expect(s.snapshot().map((c) => c.id)).toEqual([2, 1]);
    expect(unreadsOf(s.snapshot()[0], 1)).toBe(3);
  });

  it('applies chat events: a new message moves the chat up and reaches the open conversation; delete and removal drop it', () => {
    const s = new ChatStore({ list: async () => ({ records: [], count: 0, hasMore: false }) });
    s.apply({ action: 'create', chat: chat(1, '2026-11-26T10:00:00Z', { 1: 0, 2: 0 }) }, 1);
    s.apply({ action: 'create', chat: chat(2, '2026-11-26T10:30:00Z', { 1: 0, 3: 0 }) }, 1);
    const got: number[] = [];
    const off = s.onMessage((m) => got.push(m.id));
    s.apply(
      {
        action: 'new-message',
        newMessage: { id: 77, chatId: 1, senderId: 2, message: 'oi', createdAt: '2026-11-26T11:00:00Z' },
        chat: chat(1, '2026-11-26T11:00:00Z', { 1: 1, 2: 0 }),
      },
      1,
    );
    off();
    expect(got).toEqual([77]);
    expect(s.snapshot().map((c) => c.id)).toEqual([1, 2]);
    expect(unreadsOf(s.snapshot()[0], 1)).toBe(1);
    // Taken out of chat 2: it leaves my list.
    s.apply({ action: 'update', chat: chat(2, '2026-11-26T12:00:00Z', { 3: 0, 4: 0 }, 'Grupo') }, 1);
    expect(s.snapshot().map((c) => c.id)).toEqual([1]);
    s.apply({ action: 'delete', id: 1 }, 1);
    expect(s.snapshot()).toEqual([]);
  });

  it('names a chat by its title, else by the other participants', () => {
    expect(chatName(chat(1, '', { 1: 0, 2: 0 }), 1)).toBe('User 2');
    expect(chatName(chat(1, '', { 1: 0, 2: 0, 3: 0 }, 'Plantão'), 1)).toBe('Plantão');
  });
});
