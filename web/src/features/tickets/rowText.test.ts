import i18n from '../../i18n';
import { cachedSizes, maxCached, rowText } from './rowText';
import type { Age } from '../../app/format';

const age = (days: number, hours: number, mins: number): Age => ({ minutes: days * 1440 + hours * 60 + mins, days, hours, mins, level: 'late' });

describe('rowText', () => {
  it('is built once per translate function and matches i18next', () => {
    const t = i18n.getFixedT('pt-BR');
    const text = rowText(t);
    expect(rowText(t)).toBe(text);
    expect(text.noQueue).toBe(t('tickets.row.noQueue'));
    expect(text.accept).toBe(t('tickets.actions.accept'));
    expect(text.channel('socket')).toBe(t('tickets.channels.socket'));
    expect(text.age(age(2, 3, 4))).toBe(t('tickets.age.days', { d: 2, h: 3 }));
    expect(text.age(age(0, 3, 4))).toBe(t('tickets.age.hours', { h: 3, m: 4 }));
    expect(text.age(age(0, 0, 4))).toBe(t('tickets.age.minutes', { m: 4 }));
    expect(text.unread(1)).toBe(t('tickets.row.unread', { count: 1 }));
    expect(text.unread(5)).toBe(t('tickets.row.unread', { count: 5 }));
    expect(text.unread(1)).not.toBe(text.unread(5));
  });

  it('keeps each language apart', () => {
    const pt = rowText(i18n.getFixedT('pt-BR'));
    const en = rowText(i18n.getFixedT('en'));
    expect(pt).not.toBe(en);
    expect(en.noQueue).toBe(i18n.getFixedT('en')('tickets.row.noQueue'));
    expect(en.noQueue).not.toBe(pt.noQueue);
  });

  it('keeps a bounded cache of age texts', () => {
    const t = i18n.getFixedT('es');
    const text = rowText(t);
    let most = 0;
    for (let d = 1; d <= 3000; d++) {
      expect(text.age(age(d, 1, 0))).toBe(t('tickets.age.days', { d, h: 1 }));
      most = Math.max(most, cachedSizes(text).ages);
    }
    expect(most).toBe(maxCached);
    expect(cachedSizes(text).ages).toBeLessThanOrEqual(maxCached);
    expect(cachedSizes(text).ages).toBeGreaterThan(0);
    for (let n = 1; n <= 2500; n++) text.unread(n);
    expect(cachedSizes(text).unread).toBeLessThanOrEqual(maxCached);
  });
});
