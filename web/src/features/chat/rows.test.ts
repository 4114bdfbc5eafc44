import { buildRows } from './rows';
import type { Message } from '../../api/types';

const m = (id: number, at: Date): Message => ({ id, ticketId: 1, body: '', fromMe: false, ack: 0, createdAt: at.toISOString() });

describe('buildRows', () => {
  it('puts a day separator before the first message of each day and a loader on top', () => {
    const rows = buildRows(
      [m(1, new Date(2026, 10, 21, 9)), m(2, new Date(2026, 10, 21, 18)), m(3, new Date(2026, 10, 22, 8))],
      true,
    );
    expect(rows.map((r) => r.key)).toEqual(['loader', 'day-21/11/2026', 'm-1', 'm-2', 'day-22/11/2026', 'm-3']);
  });
});
