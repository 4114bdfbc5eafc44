import { defaultTenantTimeZone, setTenantTimeZone, tenantTimeZone, formatCuiaba, formatDay, formatTime, ticketAge, formatListTime } from './format';

describe('format', () => {
  it('formats history and last-update times as dd/MM/yyyy HH:mm in Cuiabá', () => {
    expect(formatCuiaba('2026-07-01T04:05:00Z')).toBe('01/07/2026 00:05');
    expect(formatCuiaba('2026-07-01T12:05:00.123456Z')).toBe('01/07/2026 08:05');
    expect(formatCuiaba(undefined)).toBe('');
    expect(formatCuiaba('not a date')).toBe('');
  });

  // One zone for the tenant everywhere: the chat's HH:mm and day separators agree with
  // the history's dd/MM/yyyy HH:mm whatever zone the browser runs in.
  it('formats HH:mm and dd/MM/yyyy in the tenant zone, like the history', () => {
    expect(formatTime('2026-11-02T11:05:00Z')).toBe('07:05');
    expect(formatDay('2026-11-02T11:05:00Z')).toBe('02/11/2026');
    // 02:30 UTC is still the evening before in Cuiabá.
    expect(formatDay('2026-11-03T02:30:00Z')).toBe('02/11/2026');
    expect(formatTime('2026-11-03T02:30:00Z')).toBe('22:30');
    for (const iso of ['2026-11-02T11:05:00Z', '2026-11-03T02:30:00Z', '2026-07-01T04:05:00Z']) {
      expect(formatCuiaba(iso)).toBe(`${formatDay(iso)} ${formatTime(iso)}`);
    }
    expect(formatTime('nope')).toBe('');
    expect(formatDay('nope')).toBe('');
  });

  it('shows the time for today and the date before, days counted in the tenant zone', () => {
    const now = Date.parse('2026-11-22T19:00:00Z'); // 15:00 in Cuiabá
    expect(formatListTime('2026-11-22T13:30:00Z', now)).toBe('09:30');
    expect(formatListTime('2026-11-21T13:30:00Z', now)).toBe('21/11/2026');
    expect(formatListTime('2026-11-22T03:30:00Z', now)).toBe('21/11/2026'); // 23:30 the day before
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

describe('setTenantTimeZone', () => {
  afterEach(() => setTenantTimeZone(defaultTenantTimeZone));
  it('shows times in the zone the tenant set, across its daylight-saving change, and ignores unknown zones', () => {
    expect(formatCuiaba('2026-03-28T09:00:00Z')).toBe('28/03/2026 05:00');
    expect(setTenantTimeZone('Europe/Lisbon')).toBe(true);
    expect(tenantTimeZone).toBe('Europe/Lisbon');
    // Lisbon: UTC+0 until 29 March 2026, UTC+1 after.
    expect(formatCuiaba('2026-03-28T09:00:00Z')).toBe('28/03/2026 09:00');
    expect(formatCuiaba('2026-03-30T08:00:00Z')).toBe('30/03/2026 09:00');
    expect(setTenantTimeZone('Mars/Olympus')).toBe(false);
    expect(tenantTimeZone).toBe('Europe/Lisbon');
  });
});
