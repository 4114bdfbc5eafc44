// Route guards of spec section 2: private routes send a visitor to /login; public
// routes send a signed-in user to / (to /tickets right after a login). Nothing renders
// while the session is still being refreshed at start.
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { useSession } from './session';
import { Splash } from '../components/Splash';

export function PrivateRoute({ children }: { children: ReactNode }) {
  const { phase } = useSession();
  const location = useLocation();
  if (phase === 'checking') return <Splash />;
  if (phase === 'signedOut') return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return <>{children}</>;
}

export function PublicRoute({ children }: { children: ReactNode }) {
  const { phase, via } = useSession();
  if (phase === 'checking') return <Splash />;
  if (phase === 'authenticated') return <Navigate to={via === 'login' ? '/tickets' : '/'} replace />;
  return <>{children}</>;
}
