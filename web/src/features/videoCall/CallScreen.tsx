// The call's screen, either party: the other side's video large, one's own small,
// the state, and the buttons the state allows. It renders a CallSession's view and
// sends it the user's intents; the session and its machine do the rest.
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/primitives';
import type { callErrors } from '../../machines/call.machine';
import type { CallSession, CallView } from './callSession';
import { CallPage, CallTitle, Controls, LocalVideo, Note, RemoteVideo, Stage, Status } from './style';

function useView(session: CallSession): CallView {
  const [view, setView] = useState(session.view);
  useEffect(() => session.subscribe(setView), [session]);
  return view;
}

function Video({ stream, label, local }: { stream: MediaStream | null; label: string; local?: boolean }) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    if (ref.current && ref.current.srcObject !== stream) ref.current.srcObject = stream;
  }, [stream]);
  const V = local ? LocalVideo : RemoteVideo;
  return <V ref={ref} autoPlay playsInline muted={local} aria-label={label} data-testid={local ? 'call-local' : 'call-remote'} />;
}

// elapsed formats seconds as m:ss.
function elapsed(from: number, now: number): string {
  const s = Math.max(0, Math.floor((now - from) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function CallScreen({ session, onClose }: { session: CallSession; onClose?: () => void }) {
  const { t } = useTranslation();
  const view = useView(session);
  const [now, setNow] = useState(() => Date.now());
  const live = view.step === 'talking' || view.step === 'held';
  useEffect(() => {
    if (!live) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [live]);

  const state = view.outcome ?? view.step;
  return (
    <CallPage data-testid="call-page" data-state={state}>
      <CallTitle>{t('call.page.title')}</CallTitle>
      <Status role="status">{t(`call.status.${state}`)}</Status>
      {view.messageKey && (
        <Note $danger role="alert" data-testid="call-message">
          {t(view.messageKey as (typeof callErrors)[keyof typeof callErrors])}
        </Note>
      )}
      {view.remoteHeld && view.step === 'held' && <Note>{t('call.page.remoteHeld')}</Note>}
      {live && view.connectedAt && <Note>{t('call.page.timer', { time: elapsed(view.connectedAt, now) })}</Note>}
      <Stage>
        <Video stream={view.remote} label={t('call.page.remote')} />
        {view.local && !view.outcome && <Video stream={view.local} label={t('call.page.local')} local />}
      </Stage>
      <Controls>
        {view.step === 'ringing' && !view.outcome && (
          <Button type="button" onClick={() => void session.answer()}>
            {t('call.actions.answer')}
          </Button>
        )}
        {view.step === 'talking' && (
          <Button type="button" $variant="secondary" onClick={() => session.hold()}>
            {t('call.actions.hold')}
          </Button>
        )}
        {view.step === 'held' && (
          <Button type="button" $variant="secondary" onClick={() => session.unhold()}>
            {t('call.actions.unhold')}
          </Button>
        )}
        {live && (
          <Button type="button" $variant="secondary" aria-pressed={view.muted} onClick={() => session.mute()}>
            {t(view.muted ? 'call.actions.unmute' : 'call.actions.mute')}
          </Button>
        )}
        {!view.outcome && (
          <Button type="button" $variant="danger" onClick={() => void session.hangup()}>
            {t('call.actions.hangup')}
          </Button>
        )}
        {view.outcome && onClose && (
          <Button type="button" $variant="secondary" onClick={onClose}>
            {t('call.actions.close')}
          </Button>
        )}
      </Controls>
    </CallPage>
  );
}
