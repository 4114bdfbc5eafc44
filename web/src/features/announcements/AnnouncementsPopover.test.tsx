import { act, fireEvent, screen, within } from '@testing-library/react';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import { theme } from '../../theme';
import { AnnouncementsPopover } from './AnnouncementsPopover';
import { announcementListTtlMs, applyAnnouncementEvent } from './useAnnouncementList';
import type { Announcement } from '../../api/types';

const ann = (id: number, priority: 1 | 2 | 3, extra: Partial<Announcement> = {}): Announcement => ({
  id,
  title: `Aviso ${id}`,
  text: `Texto ${id}`,
  priority,
  mediaPath: '',
  mediaName: '',
  status: true,
  createdAt: `2026-11-2${id}T12:00:00Z`,
  ...extra,
});

// Fake timers: the 30 s are stepped over, not waited for.
const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
// settle lets a mocked request answer (a few milliseconds of fake time).
const settle = async () => {
  for (let i = 0; i < 5; i++) await advance(1);
};

const rgb = (hex: string) => {
  const n = parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
};

describe('AnnouncementsPopover', () => {
  beforeEach(() => {
    clearResources();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('draws each announcement in its priority colour (1 red, 2 orange, 3 grey) with its attachment', async () => {
    mockFetch(
      route('GET', '/announcements/', {
        body: {
          records: [
            ann(1, 1, { mediaPath: '/media/x.y/1/aa.png', mediaName: 'cardapio.png' }),
            ann(2, 2, { mediaPath: '/media/x.y/1/bb.pdf', mediaName: 'menu.pdf' }),
            ann(3, 3),
          ],
          count: 3,
          hasMore: false,
        },
      }),
    );
    renderPage(<AnnouncementsPopover />, { profile: 'user' });
    await settle();
    fireEvent.click(screen.getByRole('button', { name: 'Informativos' }));
    await settle();
    const items = within(screen.getByRole('list', { name: 'Informativos' })).getAllByRole('listitem');
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringContaining('Aviso 1'),
      expect.stringContaining('Aviso 2'),
      expect.stringContaining('Aviso 3'),
    ]);
    const stripe = (i: number) => getComputedStyle(items[i]).borderLeftColor;
    expect(stripe(0)).toBe(rgb(theme.colors.danger));
    expect(stripe(1)).toBe(rgb(theme.colors.warning));
    expect(stripe(2)).toBe(rgb(theme.colors.textSoft));
    expect(theme.colors.danger).toBe('#d43a2f');
    expect(theme.colors.warning).toBe('#f07d00');
    expect(within(items[0]).getByRole('img', { name: 'Imagem do informativo Aviso 1' })).toHaveAttribute('src', '/media/x.y/1/aa.png');
    expect(within(items[1]).getByRole('link', { name: 'Anexo: menu.pdf' })).toHaveAttribute('href', '/media/x.y/1/bb.pdf');
    expect(within(items[2]).queryByRole('img')).toBeNull();
  });

  it('clears the list 30 s after closing: reopening before reads nothing, after reads afresh', async () => {
    let records = [ann(1, 1)];
    const { calls } = mockFetch(route('GET', '/announcements/', () => ({ body: { records, count: records.length, hasMore: false } })));
    const loads = () => calls.filter((c) => c.url.startsWith('/announcements/')).length;
    renderPage(<AnnouncementsPopover />, { profile: 'user' });
    await settle();
    const button = screen.getByRole('button', { name: 'Informativos' });
    fireEvent.click(button);
    await settle();
    expect(loads()).toBe(1);
    expect(screen.getByText('Aviso 1')).toBeInTheDocument();
    fireEvent.click(button); // close

    records = [ann(2, 3), ann(1, 1)];
    await advance(announcementListTtlMs - 100);
    fireEvent.click(button); // reopen within 30 s: the list held, no request
    await settle();
    expect(loads()).toBe(1);
    expect(screen.queryByText('Aviso 2')).toBeNull();
    fireEvent.click(button); // close again: the 30 s start over

    await advance(announcementListTtlMs - 100);
    fireEvent.click(button);
    await settle();
    expect(loads()).toBe(1); // 29.9 s after closing: still held
    fireEvent.click(button);

    await advance(announcementListTtlMs + 10); // cleared
    fireEvent.click(button);
    await settle();
    expect(loads()).toBe(2);
    expect(screen.getByText('Aviso 2')).toBeInTheDocument();
  });

  it('counts new announcements on the button until opened, and keeps an open list live', async () => {
    mockFetch(route('GET', '/announcements/', { body: { records: [ann(1, 2)], count: 1, hasMore: false } }));
    const server = renderPage(<AnnouncementsPopover />, { profile: 'user' });
    await settle();
    server.send('announcement', { action: 'create', announcement: ann(4, 1) });
    server.send('announcement', { action: 'create', announcement: ann(5, 3, { status: false }) });
    await settle();
    const button = screen.getByRole('button', { name: 'Informativos: 1 novo' });
    fireEvent.click(button);
    await settle();
    expect(screen.getByRole('button', { name: 'Informativos' })).toBeInTheDocument();
    server.send('announcement', { action: 'create', announcement: ann(6, 1, { title: 'Urgente' }) });
    await settle();
    expect(screen.getByText('Urgente')).toBeInTheDocument();
    server.send('announcement', { action: 'delete', announcementId: 6 });
    await settle();
    expect(screen.queryByText('Urgente')).toBeNull();
  });
});

describe('applyAnnouncementEvent', () => {
  const list = [ann(2, 2), ann(1, 1)];
  it('adds, replaces, drops deactivated and deleted ones', () => {
    expect(applyAnnouncementEvent(list, { action: 'create', announcement: ann(3, 3) }).map((a) => a.id)).toEqual([3, 2, 1]);
    expect(applyAnnouncementEvent(list, { action: 'update', announcement: ann(1, 3) })[1].priority).toBe(3);
    expect(applyAnnouncementEvent(list, { action: 'update', announcement: ann(1, 1, { status: false }) }).map((a) => a.id)).toEqual([2]);
    expect(applyAnnouncementEvent(list, { action: 'delete', announcementId: 2 }).map((a) => a.id)).toEqual([1]);
  });
});
