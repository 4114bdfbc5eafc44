// Recording UI: starts at once, shows mm:ss, and offers cancel and send.
import { useEffect } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import { formatElapsed } from '../../machines/recorder.machine';
import { toastError } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/primitives';
import type { ID } from '../../api/types';
import { liveRecorderMachine } from './liveComposer';
import { RecorderBar, RecDot } from './style';

export function AudioRecorder({ ticketId, onDone }: { ticketId: ID; onDone: () => void }) {
  const { t } = useTranslation();
  const actor = useActorRef(liveRecorderMachine, { input: { ticketId } });
  const elapsed = useSelector(actor, (s) => s.context.elapsed);
  const recording = useSelector(actor, (s) => s.hasTag('recording'));
  const uploading = useSelector(actor, (s) => s.hasTag('uploading'));
  const idle = useSelector(actor, (s) => s.matches('idle'));

  useEffect(() => {
    actor.send({ type: 'recorder.start' });
    const subs = [
      actor.on('failed', (e) => {
        toastError(e.error);
        onDone();
      }),
      actor.on('discarded', () => {
        toast.info(t('chat.recorder.tooShort'));
        onDone();
      }),
      actor.on('sent', () => onDone()),
    ];
    return () => subs.forEach((s) => s.unsubscribe());
  }, [actor, onDone, t]);

  return (
    <RecorderBar role="group" aria-label={t('chat.recorder.label')}>
      <IconButton
        type="button"
        aria-label={t('chat.recorder.cancel')}
        onClick={() => {
          actor.send({ type: 'recorder.cancel' });
          onDone();
        }}
      >
        <Icon name="close" />
      </IconButton>
      <RecDot $on={recording} />
      <span role="timer" aria-live="off">
        {formatElapsed(elapsed)}
      </span>
      <IconButton
        type="button"
        aria-label={t('chat.recorder.send')}
        disabled={!recording || uploading || idle}
        onClick={() => actor.send({ type: 'recorder.send' })}
      >
        <Icon name="send" />
      </IconButton>
    </RecorderBar>
  );
}
