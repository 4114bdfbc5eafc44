// What the AI adds to a message bubble: the stored translation under the text, and on
// an AI answer (media type chatgpt, shown only to attendants) the button that sends
// its text to the customer as an ordinary reply.
import { useState } from 'react';
import { useT } from '../../i18n/useT';
import { messagesApi } from '../../api/endpoints';
import { toastError } from '../../app/errors';
import { Button } from '../../components/primitives';
import type { Message } from '../../api/types';
import { TranslationText } from './style';

export function TranslationNote({ message: m }: { message: Message }) {
  const t = useT();
  const language = m.translationLanguage ? t(`chat.composer.languages.${m.translationLanguage as 'cn' | 'es' | 'gb'}`) : '';
  return (
    <TranslationText data-testid={`translation-${m.id}`}>
      <strong>{t('ai.message.translation', { language })}</strong> {m.translation}
    </TranslationText>
  );
}

export function AIAnswerSend({ message: m }: { message: Message }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const send = async () => {
    setBusy(true);
    try {
      await messagesApi.send(m.ticketId, { body: m.body, fromMe: true, read: true, mediaUrl: '', quotedMsg: null });
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button type="button" $variant="secondary" disabled={busy} onClick={() => void send()}>
      {t('ai.message.send')}
    </Button>
  );
}
