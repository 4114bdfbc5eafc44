import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Button, Row } from '../../components/primitives';
import { translationLanguages } from '../../machines/composer.machine';
import { messagesApi } from '../../api/endpoints';
import { toastError } from '../../app/errors';
import type { Message } from '../../api/types';

// Translate a message (PUT /messages/{id}); the translated message comes back by socket.
export function TranslateDialog({ message, onClose }: { message: Message | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog open={message !== null} onClose={onClose} title={t('chat.translate.title')}>
      <p>{message?.body}</p>
      <Row $wrap>
        {translationLanguages.map((l) => (
          <Button
            key={l}
            type="button"
            $variant="secondary"
            onClick={() => {
              if (message) messagesApi.translate(message.id, l).catch(toastError);
              onClose();
            }}
          >
            {t(`chat.composer.languages.${l}`)}
          </Button>
        ))}
      </Row>
    </Dialog>
  );
}
