// The QR dialog (spec section 2): the session's QR code at size 256, or 'Waiting for
// QR Code' while there is none. The page feeds it the connection as whatsappSession
// events update it, so a new code replaces the old at once. It closes itself when the
// session's qrcode becomes empty after having had a code (scanned, timed out, renewed
// elsewhere: spec section 2), and when the session is CONNECTED.
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Muted } from '../../components/primitives';
import type { Connection } from '../../api/types';
import { QrCode } from './QrCode';
import { awaitingScan } from './status';
import { QrBox } from './style';

export function QrDialog({ connection: c, onClose }: { connection: Connection; onClose: () => void }) {
  const { t } = useTranslation();
  const connected = c.status === 'CONNECTED';
  const hasCode = !!c.qrcode;
  // Whether this dialog has shown a code: an empty code only closes it after one, so
  // opening it while the first code is on its way waits for that code.
  const hadCode = useRef(false);
  if (hasCode) hadCode.current = true;
  const codeGone = hadCode.current && !hasCode;
  useEffect(() => {
    if (connected || codeGone) onClose();
  }, [connected, codeGone, onClose]);
  const code = awaitingScan(c) ? (c.qrcode ?? '') : '';
  return (
    <Dialog open onClose={onClose} title={t('connections.qr.title')} width={340}>
      <QrBox data-testid="qr-dialog" data-connection-id={c.id} data-status={c.status}>
        {code ? <QrCode value={code} size={256} label={t('connections.qr.alt', { name: c.name })} /> : <Muted>{t('connections.qr.waiting')}</Muted>}
      </QrBox>
    </Dialog>
  );
}
