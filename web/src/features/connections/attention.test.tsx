import { screen, waitFor } from '@testing-library/react';
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

describe('useConnectionAttention', () => {
  beforeEach(() => clearResources());

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
    const started = Date.now();
    await waitFor(() => expect(screen.getByTestId('count')).toHaveTextContent('1'), { timeout: attentionDelayMs + 1500 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(attentionDelayMs - 100);
    expect(screen.getByTestId('connections-attention-badge')).toHaveTextContent('1');
    server.send('whatsappSession', { action: 'update', session: { id: 2, status: 'CONNECTED', qrcode: '' } });
    await waitFor(() => expect(screen.getByTestId('count')).toHaveTextContent('0'), { timeout: attentionDelayMs + 1500 });
    expect(screen.queryByTestId('connections-attention-badge')).toBeNull();
  });

  it('keeps its count through whatsappSession and whatsapp events while ConnectionsPage is mounted', async () => {
    mockFetch(
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
    await screen.findByTestId('connection-card-2');
    await waitFor(() => expect(screen.getByTestId('count')).toHaveTextContent('1'), { timeout: attentionDelayMs + 1500 });
    server.send('whatsappSession', { action: 'update', session: { id: 1, status: 'CONNECTED', qrcode: '' } });
    server.send('whatsapp', { action: 'update', whatsapp: { id: 1, name: 'A2', status: 'CONNECTED', channel: 'whatsapp' } });
    await waitFor(() => expect(screen.getByTestId('connection-card-1')).toHaveTextContent('A2'));
    await new Promise((r) => setTimeout(r, attentionDelayMs + 300));
    expect(screen.getByTestId('count')).toHaveTextContent('1');
    expect(screen.getByTestId('connections-attention-badge')).toHaveTextContent('1');
  }, 15000);
});
