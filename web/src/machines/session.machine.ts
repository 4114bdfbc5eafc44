// Session: who is signed in (spec section 4, Session).
//
//   checking ──token stored──▶ refreshing ──ok──▶ authenticated
//       └──────no token──────▶ signedOut ◀──fail──┘
//   signedOut ──session.login──▶ loggingIn ──ok──▶ authenticated (emits loggedIn)
//   authenticated ──session.logout──▶ loggingOut ──▶ signedOut (emits loggedOut)
//   authenticated ──session.expired (a 401 seen by the REST client)──▶ signedOut
//
// The REST client applies the 403-refresh-retry rule itself and reports a new token
// with session.refreshed, so the machine only keeps the user current.
import { assign, emit, fromPromise, setup } from 'xstate';
import type { AuthResponse, SessionUser } from '../api/types';

export interface SessionContext {
  user: SessionUser | null;
  // How the current session began: a login sends the user to /tickets, a session
  // restored at start leaves them where they were going.
  via: 'login' | 'refresh' | null;
  error: unknown;
}

export type SessionEvent =
  | { type: 'session.login'; email: string; password: string }
  | { type: 'session.logout' }
  | { type: 'session.expired' }
  | { type: 'session.refreshed'; auth: AuthResponse };

export type SessionEmitted =
  | { type: 'loggedIn'; user: SessionUser }
  | { type: 'loginFailed'; error: unknown }
  | { type: 'loggedOut' }
  | { type: 'expired' };

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
    emitted: {} as SessionEmitted,
  },
  actors: {
    refresh: fromPromise<AuthResponse>(async () => {
      throw new Error('session: provide actors.refresh');
    }),
    login: fromPromise<AuthResponse, { email: string; password: string }>(async () => {
      throw new Error('session: provide actors.login');
    }),
    logout: fromPromise<void>(async () => {
      throw new Error('session: provide actors.logout');
    }),
  },
  guards: {
    hasStoredToken: () => false,
  },
  actions: {
    clearToken: () => {},
    setUser: assign({ user: (_, params: { user: SessionUser }) => params.user }),
    setVia: assign({ via: (_, params: { via: 'login' | 'refresh' }) => params.via }),
    clearUser: assign({ user: null, via: null }),
    setError: assign({ error: (_, params: { error: unknown }) => params.error }),
    clearError: assign({ error: null }),
  },
}).createMachine({
  id: 'session',
  context: { user: null, via: null, error: null },
  initial: 'checking',
  states: {
    checking: {
      always: [{ guard: 'hasStoredToken', target: 'refreshing' }, { target: 'signedOut' }],
    },
    refreshing: {
      tags: ['busy'],
      invoke: {
        src: 'refresh',
        onDone: {
          target: 'authenticated',
          actions: [
            { type: 'setUser', params: ({ event }) => ({ user: event.output.user }) },
            { type: 'setVia', params: { via: 'refresh' } },
          ],
        },
        onError: {
          target: 'signedOut',
          actions: ['clearToken', { type: 'setError', params: ({ event }) => ({ error: event.error }) }],
        },
      },
    },
    signedOut: {
      entry: 'clearUser',
      on: {
        'session.login': { target: 'loggingIn', actions: 'clearError' },
      },
    },
    loggingIn: {
      tags: ['busy'],
      invoke: {
        src: 'login',
        input: ({ event }) => {
          const e = event as Extract<SessionEvent, { type: 'session.login' }>;
          return { email: e.email, password: e.password };
        },
        onDone: {
          target: 'authenticated',
          actions: [
            { type: 'setUser', params: ({ event }) => ({ user: event.output.user }) },
            { type: 'setVia', params: { via: 'login' } },
            emit(({ event }) => ({ type: 'loggedIn' as const, user: event.output.user })),
          ],
        },
        onError: {
          target: 'signedOut',
          actions: [
            { type: 'setError', params: ({ event }) => ({ error: event.error }) },
            emit(({ event }) => ({ type: 'loginFailed' as const, error: event.error })),
          ],
        },
      },
    },
    authenticated: {
      on: {
        'session.logout': 'loggingOut',
        'session.expired': {
          target: 'signedOut',
          actions: ['clearToken', emit({ type: 'expired' as const })],
        },
        'session.refreshed': {
          actions: { type: 'setUser', params: ({ event }) => ({ user: event.auth.user }) },
        },
      },
    },
    loggingOut: {
      tags: ['busy'],
      invoke: {
        src: 'logout',
        // Whatever the server says, the browser forgets the session.
        onDone: { target: 'signedOut', actions: ['clearToken', emit({ type: 'loggedOut' as const })] },
        onError: { target: 'signedOut', actions: ['clearToken', emit({ type: 'loggedOut' as const })] },
      },
    },
  },
});
