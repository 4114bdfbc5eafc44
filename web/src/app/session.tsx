// SessionProvider runs the session machine with the real api calls and turns its
// outcomes into navigation and toasts: login → toast + /tickets, logout or expiry →
// /login. It must sit inside the router.
import { createContext, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { useNavigate } from 'react-router';
import { fromPromise, type ActorRefFrom } from 'xstate';
import { useTranslation } from 'react-i18next';
import { sessionMachine } from '../machines/session.machine';
import { authApi } from '../api/endpoints';
import { http, store } from '../api/client';
import { storageKeys } from '../api/storage';
import { sessionBus } from '../api/sessionBus';
import { toast } from '../components/toast/toastStore';
import { permissionsOf } from './permissions';
import { toastError } from './errors';
import type { SessionUser } from '../api/types';

export const liveSessionMachine = sessionMachine.provide({
  // The access token lives in memory only, so after a reload there is none: the
  // user id kept at login (cleared on sign-out) says a refresh cookie may restore it.
  guards: { hasStoredToken: () => !!http.token || !!store.getItem(storageKeys.userId) },
  actions: { clearToken: () => http.clearAuth() },
  actors: {
    refresh: fromPromise(() => authApi.refresh()),
    login: fromPromise(({ input }) => authApi.login(input.email, input.password)),
    logout: fromPromise(() => authApi.logout()),
  },
});

type SessionRef = ActorRefFrom<typeof sessionMachine>;

const SessionContext = createContext<SessionRef | null>(null);

export function SessionProvider({ children, machine = liveSessionMachine }: { children: ReactNode; machine?: typeof sessionMachine }) {
  const actor = useActorRef(machine);
  const navigate = useNavigate();
  const { t } = useTranslation();

  useEffect(() => {
    const subs = [
      // The public route guard sends the new session to /tickets.
      actor.on('loggedIn', () => toast.success(t('login.toast.success'))),
      actor.on('loginFailed', (e) => toastError(e.error)),
      actor.on('loggedOut', () => navigate('/login', { replace: true })),
      actor.on('expired', () => navigate('/login', { replace: true })),
    ];
    const unbus = sessionBus.subscribe((e) => {
      if (e.type === 'signedOut') actor.send({ type: 'session.expired' });
      else actor.send({ type: 'session.refreshed', auth: e.auth });
    });
    return () => {
      subs.forEach((s) => s.unsubscribe());
      unbus();
    };
  }, [actor, navigate, t]);

  return <SessionContext.Provider value={actor}>{children}</SessionContext.Provider>;
}

export function useSessionActor(): SessionRef {
  const a = useContext(SessionContext);
  if (!a) throw new Error('useSessionActor outside SessionProvider');
  return a;
}

export type SessionPhase = 'checking' | 'authenticated' | 'signedOut';

export function useSession(): {
  phase: SessionPhase;
  user: SessionUser | null;
  busy: boolean;
  via: 'login' | 'refresh' | null;
} {
  const actor = useSessionActor();
  const phase = useSelector(actor, (s): SessionPhase =>
    s.matches('authenticated') || s.matches('loggingOut')
      ? 'authenticated'
      : s.matches('signedOut') || s.matches('loggingIn')
        ? 'signedOut'
        : 'checking',
  );
  const user = useSelector(actor, (s) => s.context.user);
  const busy = useSelector(actor, (s) => s.hasTag('busy'));
  const via = useSelector(actor, (s) => s.context.via);
  return { phase, user, busy, via };
}

// The signed-in user; only inside private routes.
export function useUser(): SessionUser {
  const { user } = useSession();
  if (!user) throw new Error('useUser without a signed-in user');
  return user;
}

export function usePermissions(): { can: (action: string) => boolean; list: readonly string[] } {
  const { user } = useSession();
  return useMemo(() => {
    const list = permissionsOf(user?.profile);
    return { list, can: (a: string) => list.includes(a) };
  }, [user?.profile]);
}
