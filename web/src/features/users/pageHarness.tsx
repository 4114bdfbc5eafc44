// Test harness for the reference-data pages (users, queues, tags, quick answers,
// settings): a signed-in session of a chosen profile and the real realtime layer over a
// fake socket transport the test plays the server through. Test-only: no app code
// imports it.
import type { ReactElement, ReactNode } from 'react';
import { act } from '@testing-library/react';
import { fromPromise } from 'xstate';
import { renderWithProviders } from '../../test/render';
import { SessionProvider, useSession } from '../../app/session';
import { RealtimeProvider } from '../../app/realtime';
import { sessionMachine } from '../../machines/session.machine';
import { connectionActor, socketMachine } from '../../machines/socket.machine';
import type { RealtimeHandlers, RealtimeTransport, ServerEventName } from '../../api/socket';
import type { AuthResponse, Profile } from '../../api/types';

// As PrivateRoute does: the page mounts once the session is restored.
function SignedIn({ children }: { children: ReactNode }) {
  return useSession().phase === 'authenticated' ? children : null;
}

export function renderPage(ui: ReactElement, { profile = 'admin', userId = 1 }: { profile?: Profile; userId?: number } = {}) {
  let handlers: RealtimeHandlers | null = null;
  const transport: RealtimeTransport = (_getAuth, h) => {
    handlers = h;
    return { emit: () => {}, reconnect: () => {}, close: () => {} };
  };
  const session = sessionMachine.provide({
    guards: { hasStoredToken: () => true },
    actors: {
      refresh: fromPromise<AuthResponse>(async () => ({
        token: 't',
        user: { id: userId, name: 'Admin', email: 'admin@atende.dev', profile, companyId: 1, queues: [] },
      })),
    },
  });
  const socket = socketMachine.provide({
    actors: { connection: connectionActor(transport, () => 't'), refreshToken: fromPromise(async () => {}) },
  });
  renderWithProviders(
    <SessionProvider machine={session}>
      <RealtimeProvider active machine={socket}>
        <SignedIn>{ui}</SignedIn>
      </RealtimeProvider>
    </SessionProvider>,
  );
  let seq = 0;
  return {
    // server.send(name, payload): what the server's socket would push, with the next seq.
    send(name: ServerEventName, payload: object) {
      if (!handlers) throw new Error('harness: the socket never connected');
      const h = handlers as RealtimeHandlers;
      act(() => {
        h.onConnect();
        seq += 1;
        h.onEvent(name, { ...payload, seq });
      });
    },
  };
}
