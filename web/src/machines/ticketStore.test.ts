import { TicketStore } from './ticketStore';
import type { Ticket } from '../api/types';

const t: Ticket = { id: 1, status: 'open', contactId: 2, unreadMessages: 0, updatedAt: '2026-11-22T10:00:00Z' };

describe('TicketStore', () => {
  it('notifies the ticket’s subscribers on change only', () => {
    const s = new TicketStore();
    const seen: number[] = [];
    s.subscribe(1, () => seen.push(1));
    s.subscribe(2, () => seen.push(2));
    s.upsert(t);
    s.upsert({ ...t }); // same fields: no news
    s.upsert({ ...t, unreadMessages: 3 });
    expect(seen).toEqual([1, 1]);
    expect(s.get(1)?.unreadMessages).toBe(3);
  });

  it('keeps the contact when an update comes without it', () => {
    const s = new TicketStore();
    s.upsert({ ...t, contact: { id: 2, name: 'Ana', number: '1', email: '' } });
    s.upsert({ ...t, status: 'closed' });
    expect(s.get(1)?.contact?.name).toBe('Ana');
  });

  it('patches contacts of every ticket of that contact', () => {
    const s = new TicketStore();
    s.upsert({ ...t, contact: { id: 2, name: 'Ana', number: '1', email: '' } });
    s.upsert({ ...t, id: 5, contact: { id: 2, name: 'Ana', number: '1', email: '' } });
    s.patchContact({ id: 2, name: 'Ana Maria', number: '1', email: '' });
    expect([s.get(1)?.contact?.name, s.get(5)?.contact?.name]).toEqual(['Ana Maria', 'Ana Maria']);
  });
});
