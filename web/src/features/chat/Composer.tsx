// The message composer (spec section 2): up to 5 rows, Enter sends, Shift+Enter breaks
// the line, the send button shows only with text, the emoji picker, '/' quick answers,
// '#' catalog and '@' stickers (features/catalog/CatalogTrigger),
// the mutually exclusive mode toggles and the independent signature. Enabled only
// while the ticket is open; otherwise a placeholder says to reopen or accept.
// Files (spec section 7): the attach button picks up to 10 files, listed with a remove
// button until sent as one multipart POST /messages/{ticketId} with the text as the
// caption of the first. Files go out as ordinary messages, so they are offered only in
// the normal mode and lock the mode toggles while chosen.
import { useEffect, useMemo, useRef, useState, type ChangeEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useActorRef, useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { composerMachine, modeOf, translationLanguages, type TranslationLanguage } from '../../machines/composer.machine';
import { useDebounced } from '../../app/hooks';
import { toastError } from '../../app/errors';
import { messagesApi, quickAnswersApi } from '../../api/endpoints';
import { toast } from '../../components/toast/toastStore';
import { Icon } from '../../components/Icon';
import { IconButton, Select } from '../../components/primitives';
import { Popover, MenuItem } from '../../components/Popover';
import type { ID, QuickAnswer, TicketStatus } from '../../api/types';
import { emojiPerLine, emojis } from './emojis';
import { liveComposerMachine, signed } from './liveComposer';
import { AudioRecorder } from './AudioRecorder';
import { CatalogTrigger } from '../catalog/CatalogTrigger';
import {
  AttachList,
  ComposerBox,
  ComposerInputRow,
  EmojiCell,
  EmojiGrid,
  QuickList,
  ReplyPreview,
  TextArea,
  ToggleBar,
} from './style';

export const composerMaxRows = 5;
export const quickAnswerDebounceMs = 500;

// The server's limits of a multipart send (transport/http messages.go MaxMessageFiles,
// transport/media config.go defaults): checked here to refuse early; the server has the
// last word (ERR_MEDIA_TOO_LARGE, ERR_MEDIA_TYPE_NOT_ALLOWED, ERR_BODY_TOO_LARGE).
export const maxMessageFiles = 10;
const MiB = 1 << 20;
export function mediaLimitOf(file: Pick<File, 'type'>): number {
  const kind = file.type.split('/')[0];
  if (kind === 'image' || kind === 'audio') return 16 * MiB;
  if (kind === 'video') return 64 * MiB;
  return 100 * MiB;
}

export type ComposerActor = ActorRefFrom<typeof composerMachine>;

export function useComposer(ticketId: ID, enabled: boolean, canSign: boolean, userName: string, channel?: string): ComposerActor {
  const machine = useMemo(() => liveComposerMachine(userName, channel), [userName, channel]);
  const actor = useActorRef(machine, { input: { ticketId, enabled, canSign } });
  useEffect(() => {
    actor.send({ type: 'composer.setEnabled', enabled });
  }, [actor, enabled]);
  useEffect(() => {
    const sub = actor.on('failed', (e) => toastError(e.error));
    return () => sub.unsubscribe();
  }, [actor]);
  return actor;
}

export function Composer({
  actor,
  ticketId,
  status,
  canSign,
  userName = '',
  channel,
  aiOn = false,
}: {
  actor: ComposerActor;
  ticketId: ID;
  status: TicketStatus;
  canSign: boolean;
  userName?: string; // for the signature of a file's caption
  // The tenant has an AI endpoint: without one the ask-AI, text-to-audio and
  // translation toggles are disabled, their title saying where to set it up.
  aiOn?: boolean;
  channel?: string; // the ticket's channel: the signature's markup
}) {
  const { t } = useTranslation();
  const text = useSelector(actor, (s) => s.context.text);
  const quoted = useSelector(actor, (s) => s.context.quoted);
  const language = useSelector(actor, (s) => s.context.language);
  const mode = useSelector(actor, (s) => modeOf(s));
  const signedOn = useSelector(actor, (s) => s.hasTag('signed'));
  const sending = useSelector(actor, (s) => s.hasTag('sending'));
  const [emojiOpen, setEmojiOpen] = useState(false);
  const [recording, setRecording] = useState(false);
  const [files, setFiles] = useState<File[]>([]);
  const [sendingFiles, setSendingFiles] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const enabled = status === 'open';
  const hasFiles = files.length > 0;

  const onFilesChosen = (e: ChangeEvent<HTMLInputElement>) => {
    const chosen = [...(e.target.files ?? [])];
    e.target.value = ''; // the same file can be chosen again
    const usable = chosen.filter((f) => f.size > 0 && f.size <= mediaLimitOf(f));
    if (chosen.some((f) => f.size > mediaLimitOf(f))) toast.error(t('validation.fileTooBig'));
    if (chosen.some((f) => f.size === 0)) toast.error(t('validation.noMedia'));
    const next = [...files, ...usable];
    if (next.length > maxMessageFiles) toast.error(t('chat.attach.tooMany', { max: maxMessageFiles }));
    setFiles(next.slice(0, maxMessageFiles));
  };

  const sendFiles = async () => {
    if (!enabled || !hasFiles || sendingFiles) return;
    const caption = text.trim() ? (signedOn && userName ? signed(text, userName, channel) : text) : '';
    setSendingFiles(true);
    try {
      await messagesApi.sendFiles(ticketId, files, caption, quoted?.id);
      setFiles([]);
      actor.send({ type: 'composer.replace', text: '' });
      actor.send({ type: 'composer.cancelReply' });
    } catch (err) {
      toastError(err);
    } finally {
      setSendingFiles(false);
    }
  };

  const send = () => {
    if (hasFiles) void sendFiles();
    else actor.send({ type: 'composer.send' });
  };

  const quickQuery = text.startsWith('/') ? text.slice(1) : null;
  const debouncedQuick = useDebounced(quickQuery, quickAnswerDebounceMs);
  const [quick, setQuick] = useState<QuickAnswer[]>([]);
  useEffect(() => {
    if (debouncedQuick === null || !enabled) {
      setQuick([]);
      return;
    }
    let live = true;
    quickAnswersApi.search(debouncedQuick).then(
      (r) => live && setQuick(r.quickAnswers ?? []),
      // A failed search silently hides the list (spec section 8).
      () => live && setQuick([]),
    );
    return () => {
      live = false;
    };
  }, [debouncedQuick, enabled]);

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    }
  };

  const rows = Math.min(composerMaxRows, Math.max(1, text.split('\n').length));
  const hasText = text.trim().length > 0;
  const placeholder = !enabled
    ? t('chat.composer.closedPlaceholder')
    : mode === 'whisper'
      ? t('chat.composer.whisperPlaceholder')
      : mode === 'askAI'
        ? t('chat.composer.askAIPlaceholder')
        : t('chat.composer.placeholder');

  const toggle = (m: 'whisper' | 'askAI' | 'textToAudio' | 'translation') => {
    const type = {
      whisper: 'composer.toggleWhisper',
      askAI: 'composer.toggleAskAI',
      textToAudio: 'composer.toggleTextToAudio',
      translation: 'composer.toggleTranslation',
    } as const;
    actor.send({ type: type[m] });
  };

  return (
    <ComposerBox $whisper={mode === 'whisper'} aria-label={t('chat.composer.label')}>
      {quoted && (
        <ReplyPreview>
          <span>
            <strong>{t('chat.composer.replyingTo')}</strong> {quoted.body}
          </span>
          <IconButton type="button" $size={28} aria-label={t('chat.composer.cancelReply')} onClick={() => actor.send({ type: 'composer.cancelReply' })}>
            <Icon name="close" size={16} />
          </IconButton>
        </ReplyPreview>
      )}
      <ToggleBar role="group" aria-label={t('chat.composer.modes')}>
        {(
          [
            ['whisper', 'lock'],
            ['askAI', 'sparkle'],
            ['textToAudio', 'volume'],
            ['translation', 'translate'],
          ] as const
        ).map(([m, icon]) => (
          <IconButton
            key={m}
            type="button"
            $size={32}
            $active={mode === m}
            aria-pressed={mode === m}
            aria-label={t(`chat.composer.modeNames.${m}`)}
            disabled={!enabled || hasFiles || (m !== 'whisper' && !aiOn)}
            title={m !== 'whisper' && !aiOn ? t('ai.composer.notConfiguredHint') : t(`chat.composer.modeNames.${m}`)}
            onClick={() => toggle(m)}
          >
            <Icon name={icon} size={18} />
          </IconButton>
        ))}
        {mode === 'translation' && (
          <Select
            aria-label={t('chat.composer.language')}
            value={language}
            disabled={!enabled}
            onChange={(e) => actor.send({ type: 'composer.setLanguage', language: e.target.value as TranslationLanguage })}
            style={{ width: 'auto', minHeight: 32 }}
          >
            {translationLanguages.map((l) => (
              <option key={l} value={l}>
                {t(`chat.composer.languages.${l}`)}
              </option>
            ))}
          </Select>
        )}
        {canSign && (
          <IconButton
            type="button"
            $size={32}
            $active={signedOn}
            aria-pressed={signedOn}
            aria-label={t('chat.composer.sign')}
            title={t('chat.composer.sign')}
            disabled={!enabled}
            onClick={() => actor.send({ type: 'composer.toggleSignature' })}
          >
            <Icon name="edit" size={18} />
          </IconButton>
        )}
      </ToggleBar>
      {hasFiles && (
        <AttachList aria-label={t('chat.attach.list')}>
          {files.map((f, i) => (
            <li key={`${i}-${f.name}`}>
              <Icon name="attach" size={16} />
              <span title={f.name}>{f.name}</span>
              <IconButton
                type="button"
                $size={28}
                aria-label={t('chat.attach.remove', { name: f.name })}
                disabled={sendingFiles}
                onClick={() => setFiles((list) => list.filter((_, j) => j !== i))}
              >
                <Icon name="close" size={16} />
              </IconButton>
            </li>
          ))}
        </AttachList>
      )}
      <ComposerInputRow>
        <Popover
          open={emojiOpen}
          onClose={() => setEmojiOpen(false)}
          up
          width={emojiPerLine * 32 + 16}
          label={t('chat.composer.emoji')}
          anchor={
            <IconButton type="button" aria-label={t('chat.composer.emoji')} disabled={!enabled} onClick={() => setEmojiOpen((o) => !o)}>
              <Icon name="mood" />
            </IconButton>
          }
        >
          <EmojiGrid $perLine={emojiPerLine}>
            {emojis.map((e) => (
              <EmojiCell key={e} type="button" onClick={() => actor.send({ type: 'composer.insert', text: e })}>
                {e}
              </EmojiCell>
            ))}
          </EmojiGrid>
        </Popover>
        <IconButton
          type="button"
          aria-label={t('chat.attach.add')}
          title={t('chat.attach.add')}
          disabled={!enabled || recording || sendingFiles || mode !== 'normal' || files.length >= maxMessageFiles}
          onClick={() => fileInput.current?.click()}
        >
          <Icon name="attach" />
        </IconButton>
        <input ref={fileInput} type="file" multiple hidden tabIndex={-1} onChange={onFilesChosen} />
        {recording ? (
          <AudioRecorder ticketId={ticketId} onDone={() => setRecording(false)} />
        ) : (
          <>
            <TextArea
              aria-label={t('chat.composer.input')}
              rows={rows}
              value={text}
              placeholder={hasFiles && enabled ? t('chat.attach.captionPlaceholder') : placeholder}
              title={enabled ? undefined : placeholder}
              disabled={!enabled}
              onChange={(e) => actor.send({ type: 'composer.type', text: e.target.value })}
              onKeyDown={onKeyDown}
            />
            {hasText || hasFiles ? (
              <IconButton type="button" aria-label={t('chat.composer.send')} disabled={!enabled || sending || sendingFiles} onClick={send}>
                <Icon name="send" />
              </IconButton>
            ) : (
              <IconButton type="button" aria-label={t('chat.recorder.start')} disabled={!enabled} onClick={() => setRecording(true)}>
                <Icon name="mic" />
              </IconButton>
            )}
          </>
        )}
      </ComposerInputRow>
      {quick.length > 0 && (
        <QuickList role="listbox" aria-label={t('chat.composer.quickAnswers')}>
          {quick.map((q) => (
            <MenuItem key={q.id} type="button" role="option" onClick={() => actor.send({ type: 'composer.replace', text: q.message })}>
              <strong>/{q.shortcut}</strong> <span>{q.message}</span>
            </MenuItem>
          ))}
        </QuickList>
      )}
      <CatalogTrigger text={text} enabled={enabled} ticketId={ticketId} onSent={() => actor.send({ type: 'composer.replace', text: '' })} />
    </ComposerBox>
  );
}
