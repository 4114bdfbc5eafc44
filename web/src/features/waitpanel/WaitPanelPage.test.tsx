import { screen, waitFor, within } from '@testing-library/react';
import { createActor, fromPromise } from 'xstate';
import { mockFetch, route } from '../../test/fetch';
import { renderPage } from '../users/pageHarness';
import type { WaitPanel } from '../../api/supervision';
import WaitPanelPage from './WaitPanelPage';
import { formatWait, waitedMs } from './format';
import { waitPanelMachine } from './waitPanel.machine';

const at = '2026-11-26T12:00:00Z';
function panel(pending: number, online: boolean): WaitPanel {
  return {
    queues: [
      {
        id: 11,
        name: 'Vendas',
        color: '#1e6fd9',
        pending,
        open: 1,
        longestWait: pending ? { id: 7, queueId: 11, contactName: 'Carla', channel: 'socket', unreadMessages: 1, waitingSince: '2026-11-26T11:58:55Z' } : null,
        online: online ? [5] : [],
      },
    ],
    attendants: [
      { id: 5, name: 'Ana', profile: 'user', queueIds: [11], open: 1, online, onlineSince: online ? at : undefined },
      { id: 6, name: 'Bruno', profile: 'user', queueIds: [], open: 0, online: false },
    ],
    waiting: pending ? [{ id: 7, queueId: 11, contactName: 'Carla', channel: 'socket', unreadMessages: 1, waitingSince: '2026-11-26T11:58:55Z' }] : [],
    pending,
    open: 1,
    at,
  };
}

describe('formatWait', () => {
  it.each([
    [0, '0:00'],
    [-5000, '0:00'],
    [65_000, '1:05'],
    [3_725_000, '1:02:05'],
  ])('%d ms → %s', (ms, want) => expect(formatWait(ms)).toBe(want));

  it('counts from the server clock', () => {
    // The server is 10 s ahead of the browser.
    expect(waitedMs('2026-11-26T12:00:00Z', Date.parse('2026-11-26T12:00:50Z'), 10_000)).toBe(60_000);
    expect(waitedMs('not a date', 0, 0)).toBe(0);
  });
});

describe('waitPanelMachine', () => {
  it('folds a change during a read into one more read', async () => {
    let calls = 0;
    const releases: (() => void)[] = [];
    const actor = createActor(
      waitPanelMachine.provide({
        actors: {
          fetchPanel: fromPromise(
            () =>
              new Promise<WaitPanel>((resolve) => {
                calls += 1;
                releases.push(() => resolve(panel(calls, false)));
              }),
          ),
        },
      }),
    ).start();
    await waitFor(() => expect(calls).toBe(1));
    actor.send({ type: 'panel.changed' });
    actor.send({ type: 'panel.changed' });
    releases[0]();
    await waitFor(() => expect(calls).toBe(2), { timeout: 5000 });
    releases[1]();
    await waitFor(() => expect(actor.getSnapshot().matches('idle')).toBe(true));
    expect(actor.getSnapshot().context.panel?.pending).toBe(2);
    expect(calls).toBe(2);
    actor.stop();
  });
});

describe('WaitPanelPage', () => {
  it('shows the queues, the longest wait and the radar, and reads again on ticket and presence events', async () => {
    let reads = 0;
    mockFetch(
      route('GET', '/supervision/waitpanel', () => {
        reads += 1;
        return { body: reads === 1 ? panel(1, false) : panel(2, true) };
      }),
    );
    const server = renderPage(<WaitPanelPage />, { profile: 'superv' });
    const queue = await screen.findByTestId('waitpanel-queue-11');
    expect(within(queue).getByTestId('queue-pending')).toHaveTextContent('1');
    expect(within(queue).getByText('Ninguém online')).toBeInTheDocument();
    expect(screen.getByTestId('waitpanel-ticket-7')).toHaveTextContent('Carla');
    expect(screen.getByTestId('radar-user-5')).toHaveAttribute('data-online', 'false');
    expect(screen.getByRole('link', { name: 'Modo painel de parede' })).toHaveAttribute('href', '/waitpanel/wall');

    server.send('presence', { action: 'update', userId: 5 });
    await waitFor(() => expect(screen.getByTestId('radar-user-5')).toHaveAttribute('data-online', 'true'), { timeout: 5000 });
    expect(within(screen.getByTestId('waitpanel-queue-11')).getByTestId('queue-online')).toHaveTextContent('Online: Ana');
    expect(within(screen.getByTestId('waitpanel-queue-11')).getByTestId('queue-pending')).toHaveTextContent('2');
    expect(screen.getByTestId('total-online')).toHaveTextContent('1');
  });

  it('tells an attendant they may not see it, without asking the server', async () => {
    const { calls } = mockFetch();
    renderPage(<WaitPanelPage />, { profile: 'user' });
    expect(await screen.findByRole('alert')).toHaveTextContent('Você não tem permissão');
    expect(calls.filter((c) => c.url.includes('/supervision/'))).toHaveLength(0);
  });
});
