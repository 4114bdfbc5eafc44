// One message bubble: quoted reply, media, text, time HH:mm and ack ticks
// (0 pending clock, 1 sent tick, 3 read double tick, 4 played double tick in colour).
// Deleted, whisper (internal) and chatgpt (an AI answer for the attendant, with a button
// that sends it to the customer) messages look apart; a translation shows under the text.
import { memo, type CSSProperties } from 'react';
import { useT } from '../../i18n/useT';
import { sameRowProps } from '../../components/rowProps';
import { formatTime } from '../../app/format';
import { Icon } from '../../components/Icon';
import type { Message } from '../../api/types';
import { Ack, Bubble, BubbleActions, BubbleMeta, BubbleRow, MediaImage, Quoted, SmallAction, Body } from './style';
import { AIAnswerSend, TranslationNote } from '../ai/MessageAI';

export interface MessageActions {
  onReply: (m: Message) => void;
  onDelete: (m: Message) => void;
  onTranslate: (m: Message) => void;
}

export function AckIcon({ ack, failed }: { ack: number; failed?: boolean }) {
  const t = useT();
  if (failed)
    return (
      <Ack $failed title={t('chat.ack.failedHint')}>
        <Icon name="info" size={14} label={t('chat.ack.failed')} />
        {t('chat.ack.failed')}
      </Ack>
    );
  if (ack >= 4) return <Ack $read title={t('chat.ack.played')}><Icon name="doneAll" size={16} label={t('chat.ack.played')} /></Ack>;
  if (ack >= 3) return <Ack $read title={t('chat.ack.read')}><Icon name="doneAll" size={16} label={t('chat.ack.read')} /></Ack>;
  if (ack >= 1) return <Ack title={t('chat.ack.sent')}><Icon name="check" size={16} label={t('chat.ack.sent')} /></Ack>;
  return <Ack title={t('chat.ack.pending')}><Icon name="clock" size={14} label={t('chat.ack.pending')} /></Ack>;
}

function Media({ m }: { m: Message }) {
  const t = useT();
  if (!m.mediaUrl) return null;
  switch (m.mediaType) {
    case 'image':
      return <MediaImage src={m.mediaUrl} alt={m.body || t('chat.media.image')} loading="lazy" />;
    case 'audio':
      return <audio controls src={m.mediaUrl} preload="none" />;
    case 'video':
      return <video controls src={m.mediaUrl} preload="none" width={240} />;
    default:
      return (
        <a href={m.mediaUrl} target="_blank" rel="noreferrer" download>
          {t('chat.media.download')}
        </a>
      );
  }
}

export const MessageItem = memo(function MessageItem({
  message: m,
  style,
  ariaAttributes,
  onReply,
  onDelete,
  onTranslate,
}: { message: Message; style?: CSSProperties; ariaAttributes?: Record<string, unknown> } & MessageActions) {
  const t = useT();
  const aiAnswer = m.mediaType === 'chatgpt';
  const whisper = m.mediaType === 'whisper' || aiAnswer;
  const kind = m.isDeleted ? 'deleted' : whisper ? 'whisper' : m.fromMe ? 'out' : 'in';
  const showBody = m.body && !(m.mediaType === 'image' && m.body === m.mediaUrl);
  return (
    <BubbleRow style={style} {...ariaAttributes} $out={m.fromMe} data-testid={`message-${m.id}`}>
      <Bubble $kind={kind}>
        {whisper && <BubbleMeta>{aiAnswer ? t('ai.message.label') : t('chat.messages.whisperLabel')}</BubbleMeta>}
        {m.quotedMsg && (
          <Quoted $fromMe={m.quotedMsg.fromMe}>
            <strong>{m.quotedMsg.fromMe ? t('chat.messages.you') : m.quotedMsg.contactName || m.contact?.name}</strong>
            <span>{m.quotedMsg.body}</span>
          </Quoted>
        )}
        {m.isDeleted ? (
          <Body as="em">{t('chat.messages.deleted')}</Body>
        ) : (
          <>
            <Media m={m} />
            {showBody && <Body>{m.body}</Body>}
            {m.translation && <TranslationNote message={m} />}
            {aiAnswer && <AIAnswerSend message={m} />}
          </>
        )}
        <BubbleMeta>
          {formatTime(m.createdAt)}
          {m.fromMe && !whisper && <AckIcon ack={m.ack} failed={m.failed} />}
        </BubbleMeta>
        {!m.isDeleted && (
          <BubbleActions>
            <SmallAction type="button" aria-label={t('chat.messages.reply')} title={t('chat.messages.reply')} onClick={() => onReply(m)}>
              <Icon name="reply" size={16} />
            </SmallAction>
            <SmallAction type="button" aria-label={t('chat.messages.translate')} title={t('chat.messages.translate')} onClick={() => onTranslate(m)}>
              <Icon name="translate" size={16} />
            </SmallAction>
            {m.fromMe && (
              <SmallAction type="button" aria-label={t('chat.messages.delete')} title={t('chat.messages.delete')} onClick={() => onDelete(m)}>
                <Icon name="delete" size={16} />
              </SmallAction>
            )}
          </BubbleActions>
        )}
      </Bubble>
    </BubbleRow>
  );
}, sameRowProps);
