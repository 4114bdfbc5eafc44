// useCallSession runs one CallSession for the page's lifetime: made and started in
// an effect (so a remount makes a fresh one), hung up when the page goes away.
import { useEffect, useState } from 'react';
import { CallSession, type CallSessionOptions } from './callSession';

export function useCallSession(opts: () => CallSessionOptions): CallSession | null {
  const [session, setSession] = useState<CallSession | null>(null);
  useEffect(() => {
    const s = new CallSession(opts());
    setSession(s);
    void s.start();
    // Closing the window hangs up; the server would tell the other party anyway.
    const bye = () => void s.hangup();
    window.addEventListener('pagehide', bye);
    return () => {
      window.removeEventListener('pagehide', bye);
      s.dispose();
    };
    // The options are read once: a call page is one call.
  }, []);
  return session;
}
