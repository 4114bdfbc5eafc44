import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { dashboardMachine } from './dashboard.machine';
import type { Dashboard, DashboardFilter } from '../../api/dashboard';

const filter: DashboardFilter = { dateFrom: '2026-11-01', dateTo: '2026-11-26', queueIds: [] };

function fakeData(opened: number): Dashboard {
  return { opened } as unknown as Dashboard;
}

describe('dashboardMachine', () => {
  it('loads, then reloads once for a burst of changes', async () => {
    let calls = 0;
    const load = vi.fn(async () => fakeData(++calls));
    const actor = createActor(
      dashboardMachine.provide({ actors: { load: fromPromise(load) }, delays: { settle: 5 } }),
      { input: { filter } },
    ).start();
    await waitFor(actor, (s) => s.matches('idle'));
    expect(actor.getSnapshot().context.data?.opened).toBe(1);
    actor.send({ type: 'dashboard.changed' });
    actor.send({ type: 'dashboard.changed' });
    actor.send({ type: 'dashboard.changed' });
    await waitFor(actor, (s) => s.matches('idle') && s.context.data?.opened === 2);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('reloads after a load that a change interrupted', async () => {
    let release: (() => void) | null = null;
    let calls = 0;
    const load = vi.fn(
      () =>
        new Promise<Dashboard>((resolve) => {
          calls++;
          const n = calls;
          release = () => resolve(fakeData(n));
        }),
    );
    const actor = createActor(
      dashboardMachine.provide({ actors: { load: fromPromise(load) }, delays: { settle: 5 } }),
      { input: { filter } },
    ).start();
    actor.send({ type: 'dashboard.changed' });
    release!();
    await waitFor(actor, () => load.mock.calls.length === 2);
    release!();
    await waitFor(actor, (s) => s.matches('idle') && s.context.data?.opened === 2);
  });

  it('loads the new filter and reports failures by code', async () => {
    const load = vi.fn(async (f: DashboardFilter) => {
      if (f.queueIds.length) throw Object.assign(new Error('x'), { code: 'ERR_NO_PERMISSION' });
      return fakeData(7);
    });
    const actor = createActor(
      dashboardMachine.provide({ actors: { load: fromPromise(({ input }) => load(input)) } }),
      { input: { filter } },
    ).start();
    await waitFor(actor, (s) => s.matches('idle'));
    actor.send({ type: 'dashboard.filter', filter: { ...filter, queueIds: [3] } });
    await waitFor(actor, (s) => s.matches('failed'));
    expect((actor.getSnapshot().context.error as { code?: string }).code).toBe('ERR_NO_PERMISSION');
    expect(load).toHaveBeenLastCalledWith({ ...filter, queueIds: [3] });
  });
});
