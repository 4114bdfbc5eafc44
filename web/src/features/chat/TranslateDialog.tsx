import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button, Muted, Row } from '../../components/primitives';
import { translationLanguages } from '../../machines/composer.machine';
import { messagesApi } from '../../api/endpoints';
import { isApiError } from '../../api/errors';
import { toastError } from '../../app/errors';
import type { Message } from '../../api/types';

// A server without message translation answers PUT /messages/{id} with 405 (no such
// method on the route), 404 or 501. That is not a failure to report but a feature to
// explain: once seen, the dialog says translation is not configured, for the rest of
// the page's life, instead of offering languages that cannot work.
const notConfiguredStatus = new Set([404, 405, 501]);
let translationMissing = false;

// forgetTranslationAnswer resets what the dialog learnt (tests).
export function forgetTranslationAnswer(): void {
  translationMissing = false;
}

// Translate a message (PUT /messages/{id}); the translation comes back by socket and
// shows under the message. A tenant without AI configured (ERR_AI_NOT_CONFIGURED) is
// told so in the dialog rather than by an error toast.
export function TranslateDialog({ message, onClose }: { message: Message | null; onClose: () => void }) {
  const { t } = useTranslation();
  const [missing, setMissing] = useState(translationMissing);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (message) setMissing(translationMissing);
  }, [message]);

  const translate = async (m: Message, language: string) => {
    setBusy(true);
    try {
      await messagesApi.translate(m.id, language);
      onClose();
    } catch (err) {
      if (isApiError(err) && notConfiguredStatus.has(err.status)) {
        translationMissing = true;
        setMissing(true);
      } else if (isApiError(err) && err.code === 'ERR_AI_NOT_CONFIGURED') {
        // The tenant may set AI up later (docs/ai.md): not remembered for the page.
        setMissing(true);
      } else {
        toastError(err);
        onClose();
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={message !== null} onClose={onClose} title={t('chat.translate.title')}>
      <p>{message?.body}</p>
      {missing ? (
        <Muted role="status">{t('chat.translate.notConfigured')}</Muted>
      ) : (
        <Row $wrap>
          {translationLanguages.map((l) => (
            <Button key={l} type="button" $variant="secondary" disabled={busy} onClick={() => message && void translate(message, l)}>
              {t(`chat.composer.languages.${l}`)}
            </Button>
          ))}
        </Row>
      )}
    </Dialog>
  );
}
