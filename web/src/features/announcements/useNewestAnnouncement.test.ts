import type { Announcement } from '../../api/types';
import { concernsNewest } from './useNewestAnnouncement';

const ann = (id: number, createdAt: string, status = true): Announcement => ({
  id,
  title: `A${id}`,
  text: '',
  priority: 2,
  mediaPath: '',
  mediaName: '',
  status,
  createdAt,
});

const newest = ann(5, '2026-11-20T10:00:00Z');

describe('concernsNewest', () => {
  it('reloads for events about the current newest', () => {
    expect(concernsNewest({ action: 'update', announcement: { ...newest, title: 'x' } }, newest)).toBe(true);
    expect(concernsNewest({ action: 'update', announcement: { ...newest, status: false } }, newest)).toBe(true);
    expect(concernsNewest({ action: 'delete', announcementId: 5 }, newest)).toBe(true);
  });

  it('reloads for an active announcement newer than the newest, or when there was none', () => {
    expect(concernsNewest({ action: 'create', announcement: ann(6, '2026-11-21T10:00:00Z') }, newest)).toBe(true);
    expect(concernsNewest({ action: 'update', announcement: ann(7, '2026-11-20T10:00:00Z') }, newest)).toBe(true);
    expect(concernsNewest({ action: 'create', announcement: ann(6, '2026-11-21T10:00:00Z') }, null)).toBe(true);
  });

  it('ignores older active announcements and other inactive or deleted ones', () => {
    expect(concernsNewest({ action: 'update', announcement: ann(3, '2026-11-19T10:00:00Z') }, newest)).toBe(false);
    expect(concernsNewest({ action: 'update', announcement: ann(4, '2026-11-20T10:00:00Z') }, newest)).toBe(false);
    expect(concernsNewest({ action: 'update', announcement: ann(8, '2026-11-22T10:00:00Z', false) }, newest)).toBe(false);
    expect(concernsNewest({ action: 'delete', announcementId: 3 }, newest)).toBe(false);
    expect(concernsNewest({ action: 'delete', announcementId: 3 }, null)).toBe(false);
  });

  it('reloads when it cannot tell: still loading, or no id', () => {
    expect(concernsNewest({ action: 'update', announcement: ann(3, '2026-11-19T10:00:00Z') }, undefined)).toBe(true);
    expect(concernsNewest({ action: 'delete' }, newest)).toBe(true);
  });
});
