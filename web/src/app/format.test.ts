import { formatCuiaba, formatDay, formatTime, ticketAge, formatListTime } from './format';

describe('format', () => {
  it('formats history and last-update times as dd/MM/yyyy HH:mm in Cuiabá', () => {
    expect(formatCuiaba('2026-07-01T04:05:00Z')).toBe('01/07/2026 00:05');
    expect(formatCuiaba('2026-07-01T12:05:00.123456Z')).toBe('01/07/2026 08:05');
    expect(formatCuiaba(undefined)).toBe('');
    expect(formatCuiaba('not a date')).toBe('');
  });

  it('formats HH:mm and dd/MM/yyyy in local time', () => {
    const d = new Date(2026, 10, 2, 7, 5);
    expect(formatTime(d)).toBe('07:05');
    expect(formatDay(d)).toBe('02/11/2026');
  });

  it('shows the time for today and the date before', () => {
    const now = new Date(2026, 10, 22, 15, 0).getTime();
    expect(formatListTime(new Date(2026, 10, 22, 9, 30).toISOString(), now)).toBe('09:30');
    expect(formatListTime(new Date(2026, 10, 21, 9, 30).toISOString(), now)).toBe('21/11/2026');
  });

  it.each([
    [0, 'fresh'],
    [2, 'fresh'],
    [3, 'warm'],
    [4, 'warm'],
    [5, 'hot'],
    [6, 'late'],
  ] as const)('age of %i minutes is %s', (minutes, level) => {
    const updated = Date.parse('2026-11-22T10:00:00Z');
    expect(ticketAge('2026-11-22T10:00:00Z', updated + minutes * 60000 + 30000, 0).level).toBe(level);
  });

  it('corrects by the client-server clock difference and splits days/hours/minutes', () => {
    const updated = Date.parse('2026-11-22T10:00:00Z');
    // The client clock runs 10 minutes ahead of the server's.
    const age = ticketAge('2026-11-22T10:00:00Z', updated + 10 * 60000, 10 * 60000);
    expect(age.minutes).toBe(0);
    const long = ticketAge('2026-11-20T08:55:00Z', updated, 0);
    expect([long.days, long.hours, long.mins]).toEqual([2, 1, 5]);
  });
});
