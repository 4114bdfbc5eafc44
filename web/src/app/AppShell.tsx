// AppShell holds what every route shares and needs the router for: the session, the
// realtime connection while signed in, and the toasts.
import { Outlet } from 'react-router';
import { SessionProvider, useSession } from './session';
import { RealtimeProvider } from './realtime';
import { Toaster } from '../components/toast/Toaster';

function WithRealtime() {
  const { phase } = useSession();
  return (
    <RealtimeProvider active={phase === 'authenticated'}>
      <Outlet />
      <Toaster />
    </RealtimeProvider>
  );
}

export function AppShell() {
  return (
    <SessionProvider>
      <WithRealtime />
    </SessionProvider>
  );
}
