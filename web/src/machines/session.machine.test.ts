import { createActor, fromPromise, waitFor } from 'xstate';
import { sessionMachine } from './session.machine';
import type { AuthResponse } from '../api/types';

const auth: AuthResponse = {
  token: 't1',
  user: { id: 7, name: 'Ana', email: 'ana@x.io', profile: 'admin', companyId: 1, queues: [] },
};

function build(opts: { stored: boolean; refresh?: () => Promise<AuthResponse>; login?: () => Promise<AuthResponse> }) {
  const calls = { clearToken: 0, refresh: 0, login: [] as unknown[], logout: 0 };
  const machine = sessionMachine.provide({
    guards: { hasStoredToken: () => opts.stored },
    actions: { clearToken: () => void calls.clearToken++ },
    actors: {
      refresh: fromPromise(async () => {
        calls.refresh++;
        return (opts.refresh ?? (async () => auth))();
      }),
      login: fromPromise(async ({ input }) => {
        calls.login.push(input);
        return (opts.login ?? (async () => auth))();
      }),
      logout: fromPromise(async () => {
        calls.logout++;
      }),
    },
  });
  const actor = createActor(machine);
  const emitted: string[] = [];
  actor.on('*', (e) => emitted.push(e.type));
  return { actor, calls, emitted };
}

describe('session machine', () => {
  it('refreshes at start when a token is stored', async () => {
    const { actor, calls } = build({ stored: true });
    actor.start();
    const snap = await waitFor(actor, (s) => s.matches('authenticated'));
    expect(calls.refresh).toBe(1);
    expect(snap.context.user?.name).toBe('Ana');
  });

  it('signs out when the start-up refresh fails, clearing the token', async () => {
    const { actor, calls } = build({ stored: true, refresh: async () => Promise.reject(new Error('401')) });
    actor.start();
    await waitFor(actor, (s) => s.matches('signedOut'));
    expect(calls.clearToken).toBe(1);
  });

  it('starts signed out without a token and never refreshes', () => {
    const { actor, calls } = build({ stored: false });
    actor.start();
    expect(actor.getSnapshot().matches('signedOut')).toBe(true);
    expect(calls.refresh).toBe(0);
  });

  it('logs in with the typed credentials and emits loggedIn', async () => {
    const { actor, calls, emitted } = build({ stored: false });
    actor.start();
    actor.send({ type: 'session.login', email: 'ana@x.io', password: 'secret' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await waitFor(actor, (s) => s.matches('authenticated'));
    expect(calls.login).toEqual([{ email: 'ana@x.io', password: 'secret' }]);
    expect(emitted).toContain('loggedIn');
  });

  it('stays signed out on a failed login and keeps the error', async () => {
    const failure = new Error('ERR_INVALID_CREDENTIALS');
    const { actor, emitted } = build({ stored: false, login: async () => Promise.reject(failure) });
    actor.start();
    actor.send({ type: 'session.login', email: 'a@b.c', password: 'x' });
    const snap = await waitFor(actor, (s) => s.matches('signedOut') && s.context.error !== null);
    expect(snap.context.error).toBe(failure);
    expect(emitted).toContain('loginFailed');
  });

  it('logs out: calls the server, clears the token, emits loggedOut', async () => {
    const { actor, calls, emitted } = build({ stored: true });
    actor.start();
    await waitFor(actor, (s) => s.matches('authenticated'));
    actor.send({ type: 'session.logout' });
    await waitFor(actor, (s) => s.matches('signedOut'));
    expect(calls.logout).toBe(1);
    expect(calls.clearToken).toBe(1);
    expect(emitted).toContain('loggedOut');
    expect(actor.getSnapshot().context.user).toBeNull();
  });

  it('a 401 (session.expired) clears the token and signs out', async () => {
    const { actor, calls, emitted } = build({ stored: true });
    actor.start();
    await waitFor(actor, (s) => s.matches('authenticated'));
    actor.send({ type: 'session.expired' });
    expect(actor.getSnapshot().matches('signedOut')).toBe(true);
    expect(calls.clearToken).toBe(1);
    expect(emitted).toContain('expired');
  });

  it('a refresh after a 403 retry updates the user', async () => {
    const { actor } = build({ stored: true });
    actor.start();
    await waitFor(actor, (s) => s.matches('authenticated'));
    actor.send({ type: 'session.refreshed', auth: { token: 't2', user: { ...auth.user, name: 'Ana Maria' } } });
    expect(actor.getSnapshot().context.user?.name).toBe('Ana Maria');
  });

  it('ignores session.expired while signed out', () => {
    const { actor, calls } = build({ stored: false });
    actor.start();
    actor.send({ type: 'session.expired' });
    expect(actor.getSnapshot().matches('signedOut')).toBe(true);
    expect(calls.clearToken).toBe(0);
  });
});
