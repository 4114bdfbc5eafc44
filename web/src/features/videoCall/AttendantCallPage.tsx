// The attendant's call window (/video-call/:callId#<attendant token>), opened by the
// chat header as an 800×600 popout: it dials at once. The token travels in the
// fragment, which no request carries.
import { useEffect } from 'react';
import { useParams } from 'react-router';
import { http } from '../../api/client';
import { Splash } from '../../components/Splash';
import { CallScreen } from './CallScreen';
import { useCallSession } from './useCallSession';
import { reportProgress } from './launcher';

export default function AttendantCallPage() {
  const { callId = '' } = useParams();
  const session = useCallSession(() => ({
    role: 'attendant',
    socketToken: http.token ?? '',
    attendantToken: window.location.hash.slice(1),
    callId,
  }));
  // The chat header that opened this window follows the call through these reports.
  useEffect(() => {
    if (!session) return;
    const report = reportProgress();
    return session.subscribe((v) => report({ callId, step: v.step, outcome: v.outcome }));
  }, [session, callId]);
  return session ? <CallScreen session={session} onClose={() => window.close()} /> : <Splash />;
}
