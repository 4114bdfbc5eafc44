import { screen, waitFor } from '@testing-library/react';
import { vi } from 'vitest';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import DashboardPage, { duration } from './DashboardPage';

// ECharts needs a canvas; the page's numbers do not.
vi.mock('./SeriesChart', () => ({ SeriesChart: () => null }));

function dashboard(resolved: number) {
  return {
    from: '2026-11-01',
    to: '2026-11-26',
    byStatus: { open: 2, pending: 1, closed: resolved },
    byQueue: [{ id: 3, n: 3 }],
    byUser: [{ id: 7, n: 2 }, { n: 1 }],
    byChannel: [{ key: 'whatsapp', n: 3 }],
    opened: 3,
    resolved,
    messagesIn: 10,
    messagesOut: 12,
    firstResponse: { count: 2, median: 95, p90: 4000 },
    resolution: { count: 1, median: 7300, p90: 7300 },
    satisfaction: { totalsum: 8, totalcount: 3, score: 8.888, icon: 2 },
    satisfactionByUser: [{ id: 7, totalsum: 3, totalcount: 1, score: 10, icon: 3 }],
    satisfactionByQueue: [{ id: 3, totalsum: 8, totalcount: 3, score: 8.888, icon: 2 }],
    opportunities: { won: { count: 1, cents: 120000 }, lost: { count: 0, cents: 0 }, open: { count: 2, cents: 4590 } },
    series: [],
  };
}

describe('DashboardPage', () => {
  beforeEach(() => clearResources());

  it('shows the numbers and reloads them on a ticket event, without polling', async () => {
    let resolved = 4;
    const { calls } = mockFetch(
      route('GET', '/dashboard', () => ({ body: dashboard(resolved) })),
      route('GET', '/queue', { body: [{ id: 3, name: 'Vendas', color: '#111111' }] }),
      route('GET', '/users/list', { body: [{ id: 7, name: 'Ana', email: 'a@x', profile: 'user', queues: [] }] }),
    );
    const server = renderPage(<DashboardPage />, { profile: 'superv' });
    expect(await screen.findByTestId('dash-resolved')).toHaveTextContent('4');
    expect(screen.getByText('R$ 1.200,00')).toBeInTheDocument();
    expect(screen.getAllByRole('img', { name: 'Satisfação média' })).toHaveLength(2); // overall and the queue's
    expect(screen.getByRole('img', { name: 'Satisfação alta' })).toBeInTheDocument();
    expect(await screen.findAllByText('Vendas')).not.toHaveLength(0);
    const loads = () => calls.filter((c) => c.url.startsWith('/dashboard?')).length;
    expect(loads()).toBe(1);

    resolved = 5;
    server.send('ticket', { action: 'update', ticket: { id: 1, status: 'closed' } });
    server.send('appMessage', { action: 'create', message: { id: 2 } });
    await waitFor(() => expect(screen.getByTestId('dash-resolved')).toHaveTextContent('5'));
    expect(loads()).toBe(2);
    expect(calls.find((c) => c.url.startsWith('/dashboard?'))?.url).toMatch(/dateFrom=\d{4}-\d\d-\d\d&dateTo=\d{4}-\d\d-\d\d$/);
  });

  it('tells an attendant the dashboard is not theirs, and asks the server nothing', async () => {
    const { calls } = mockFetch();
    renderPage(<DashboardPage />, { profile: 'user' });
    expect(await screen.findByText('Somente supervisores e administradores podem ver o painel.')).toBeInTheDocument();
    expect(calls.some((c) => c.url.startsWith('/dashboard'))).toBe(false);
  });

  it('formats durations', () => {
    expect(duration(45)).toBe('45s');
    expect(duration(95)).toBe('1m 35s');
    expect(duration(7300)).toBe('2h 01m');
    expect(duration(200000)).toBe('2d 7h');
  });
});
