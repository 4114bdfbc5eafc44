// The web's twins of the Go rules against the golden files the Go tests write
// (engine/rules_golden_test.go; regenerate with go test ./engine/ -run Golden -update).
import visibility from './golden/visibility.json';
import ages from './golden/ticketAge.json';
import satisfaction from './golden/satisfaction.json';
import lists from './golden/lists.json';
import { satisfactionScore, seesTicket } from './rules';
import { ticketAge } from './format';
import type { TicketStatus } from '../api/types';
import { belongs, emptyFilters } from '../machines/ticketList.machine';

describe('seesTicket equals engine.SeesTicket', () => {
  it('covers cases that see and cases that do not', () => {
    const all = visibility.sees.join('');
    expect(all).toContain('1');
    expect(all).toContain('0');
    expect(visibility.sees).toHaveLength(visibility.principals.length);
  });
  visibility.principals.forEach((p, i) => {
    it(`${p.profile} user ${p.userId} queues [${p.queueIds.join(',')}]`, () => {
      const got = visibility.tickets
        .map((t) => (seesTicket(p, { ...t, status: t.status as TicketStatus }) ? '1' : '0'))
        .join('');
      expect(got).toBe(visibility.sees[i]);
    });
  });
});

describe('ticketAge equals engine.TicketAgeColor and AgeParts', () => {
  const color = { fresh: 'green', warm: 'yellow', hot: 'orange', late: 'red' } as const;
  const updated = '2026-11-22T14:00:00Z';
  it.each(ages)('$seconds s', (c) => {
    const age = ticketAge(updated, Date.parse(updated) + c.seconds * 1000, 0);
    expect({ color: color[age.level], days: age.days, hours: age.hours, minutes: age.mins }).toEqual({
      color: c.color,
      days: c.days,
      hours: c.hours,
      minutes: c.minutes,
    });
  });
});

describe('satisfactionScore equals engine.SatisfactionScore', () => {
  const icon = { low: 1, medium: 2, high: 3 } as const;
  it('has every case', () => expect(satisfaction.length).toBeGreaterThan(100));
  it('agrees on every case', () => {
    const wrong = satisfaction.filter((c) => {
      const got = satisfactionScore({ totalsum: c.totalsum, totalcount: c.totalcount });
      if (got === null) return c.icon !== 0 || c.score !== 0;
      return icon[got.level] !== c.icon || Math.abs(got.score - c.score) > 1e-12;
    });
    expect(wrong).toEqual([]);
  });
});

describe('the ticket-list machine (belongs) equals engine.ListsTicket', () => {
  it('lists some and hides some', () => {
    const all = lists.lists.join('');
    expect(all).toContain('1');
    expect(all).toContain('0');
    expect(lists.lists).toHaveLength(lists.principals.length * lists.queries.length);
  });
  lists.principals.forEach((p, i) => {
    it(`${p.profile} user ${p.userId} queues [${p.queueIds.join(',')}]`, () => {
      const wrong: string[] = [];
      lists.queries.forEach((q, j) => {
        const ctx = {
          spec: { status: (q.status || undefined) as TicketStatus | undefined, withUnreadMessages: q.withUnreadMessages },
          filters: { ...emptyFilters, showAll: q.showAll, queueIds: q.queueIds, users: q.users },
          userId: p.userId,
          viewer: p,
        };
        const got = lists.tickets
          .map((t) => (belongs({ ...t, contactId: 1, updatedAt: '', status: t.status as TicketStatus }, ctx) ? '1' : '0'))
          .join('');
        const want = lists.lists[i * lists.queries.length + j];
        if (got !== want) wrong.push(`${JSON.stringify(q)}\n got ${got}\nwant ${want}`);
      });
      expect(wrong).toEqual([]);
    });
  });
});
