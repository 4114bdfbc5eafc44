import { act, screen } from '@testing-library/react';
import { mockFetch, route } from '../../test/fetch';
import { clearResources } from '../../app/resources';
import { renderPage } from '../users/pageHarness';
import ConnectionsPage from './ConnectionsPage';
import { AttentionIcon, attentionDelayMs, useConnectionAttention } from './attention';

function Probe() {
  const n = useConnectionAttention();
  return (
    <AttentionIcon on={n > 0} count={n}>
      <span data-testid="count">{n}</span>
    </AttentionIcon>
  );
}

// Fake timers: the 2 s delay is stepped over, not waited for. Testing-library's waitFor
// polls on the (faked) timers, so the tests advance the clock and check instead.
const advance = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));

describe('useConnectionAttention', () => {
  beforeEach(() => {
    clearResources();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('counts the connections needing attention 2 s after a change, live from whatsappSession', async () => {
    mockFetch(
      route('GET', '/whatsapp/', {
        body: [
          { id: 1, name: 'A', status: 'CONNECTED', channel: 'whatsapp' },
          { id: 2, name: 'B', status: 'qrcode', channel: 'whatsapp' },
        ],
      }),
    );
    const server = renderPage(<Probe />, { profile: 'user' });
    await advance(0);
    expect(screen.getByTestId('count')).toHaveTextContent('0');
    // Not before 2 s have passed since the change…
    await advance(attentionDelayMs - 100);
    expect(screen.getByTestId('count')).toHaveTextContent('0');
    expect(screen.queryByTestId('connections-attention-badge')).toBeNull();
    // …then the count.
    await advance(100);
    expect(screen.getByTestId('count')).toHaveTextContent('1');
    expect(screen.getByTestId('connections-attention-badge')).toHaveTextContent('1');
    server.send('whatsappSession', { action: 'update', session: { id: 2, status: 'CONNECTED', qrcode: '' } });
    await advance(attentionDelayMs - 100);
    expect(screen.getByTestId('count')).toHaveTextContent('1');
    await advance(100);
    expect(screen.getByTestId('count')).toHaveTextContent('0');
    expect(screen.queryByTestId('connections-attention-badge')).toBeNull();
  });

  it('keeps its count through whatsappSession and whatsapp events while ConnectionsPage is mounted', async () => {
    const { calls } = mockFetch(
      route('GET', '/whatsapp/', {
        body: [
          { id: 1, name: 'A', status: 'CONNECTED', channel: 'whatsapp' },
          { id: 2, name: 'B', status: 'qrcode', channel: 'whatsapp' },
        ],
      }),
    );
    const server = renderPage(
      <>
        <Probe />
        <ConnectionsPage />
      </>,
    );
    await advance(0);
    expect(screen.getByTestId('connection-card-2')).toBeInTheDocument();
    await advance(attentionDelayMs);
    expect(screen.getByTestId('count')).toHaveTextContent('1');
    server.send('whatsappSession', { action: 'update', session: { id: 1, status: 'CONNECTED', qrcode: '' } });
    server.send('whatsapp', { action: 'update', whatsapp: { id: 1, name: 'A2', status: 'CONNECTED', channel: 'whatsapp' } });
    await advance(0);
    expect(screen.getByTestId('connection-card-1')).toHaveTextContent('A2');
    await advance(attentionDelayMs + 300);
    expect(screen.getByTestId('count')).toHaveTextContent('1');
    expect(screen.getByTestId('connections-attention-badge')).toHaveTextContent('1');
    // One GET /whatsapp/ shared by the page and the alarm; the events carry the rows.
    expect(calls.filter((c) => c.url === '/whatsapp/').map((c) => c.method)).toEqual(['GET']);
  });
});
