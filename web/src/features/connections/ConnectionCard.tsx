// One connection on the Connections page (spec section 2): channel icon, name, number,
// last update in the Cuiabá time zone, the label Padrão / Disparo / Sem Função
// Específica, the status icon with its tooltip, the buttons its status allows, and for
// a web chat connection the code that embeds its widget (WebChatEmbed).
import { memo } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon, type IconName } from '../../components/Icon';
import { RowActions } from '../../components/ListPage';
import { Button } from '../../components/primitives';
import { Spinner } from '../../components/Splash';
import type { Connection } from '../../api/types';
import { formatCuiaba } from '../../app/format';
import { roleOf, statusOf, type ConnStatus } from './status';
import { ChannelMark } from '../tickets/ChannelMark';
import { Actions, Card, CardHead, Meta, RoleLabel, StatusMark } from './style';
import { WebChatEmbed } from './WebChatEmbed';

const statusLook: Record<ConnStatus | 'unknown', { icon: IconName | 'spinner'; tone: 'ok' | 'warn' | 'bad' | 'busy' }> = {
  CONNECTED: { icon: 'check', tone: 'ok' },
  DISCONNECTED: { icon: 'close', tone: 'bad' },
  OPENING: { icon: 'spinner', tone: 'busy' },
  qrcode: { icon: 'phone', tone: 'warn' },
  PAIRING: { icon: 'swap', tone: 'busy' },
  TIMEOUT: { icon: 'clock', tone: 'bad' },
  STALLED: { icon: 'info', tone: 'bad' },
  unknown: { icon: 'info', tone: 'warn' },
};

export type CardAction = 'qrcode' | 'retry' | 'newQr' | 'disconnect' | 'wipe' | 'hub' | 'edit' | 'delete';

// The session buttons each status offers.
export function sessionActions(status: string): CardAction[] {
  switch (statusOf(status)) {
    case 'qrcode':
      return ['qrcode', 'newQr', 'disconnect'];
    case 'PAIRING':
    case 'OPENING':
      return ['disconnect'];
    case 'CONNECTED':
      return ['disconnect', 'wipe'];
    default: // DISCONNECTED, TIMEOUT, STALLED
      return ['retry', 'newQr', 'wipe'];
  }
}

// Channels whose connection subscribes to Meta's web-hooks (POST /hubregister/): the
// others have no hub, and the server answers 404 for them.
const hubChannels = new Set(['facebook', 'instagram', 'waba']);

export function cardActions(c: Pick<Connection, 'status' | 'channel'>): CardAction[] {
  const session = sessionActions(c.status);
  // Wiping the credentials ends the session for good (a new QR code, a new token): a
  // rare, confirmed action, placed last and drawn like the others rather than as the
  // card's loudest button.
  const out: CardAction[] = session.filter((a) => a !== 'wipe');
  if (hubChannels.has(c.channel ?? '')) out.push('hub');
  if (session.includes('wipe')) out.push('wipe');
  return out;
}

export interface ConnectionCardProps {
  connection: Connection;
  manage: boolean; // connections:manage: session and edit buttons
  onAction: (action: CardAction, c: Connection) => void;
}

export const ConnectionCard = memo(function ConnectionCard({ connection: c, manage, onAction }: ConnectionCardProps) {
  const { t } = useTranslation();
  const status = statusOf(c.status);
  const look = statusLook[status];
  const tip = t(`connections.status.${status}`);
  const role = roleOf(c);
  const updated = formatCuiaba(c.updatedAt);
  const button = (a: CardAction) => (
    <Button key={a} type="button" $small $variant="ghost" onClick={() => onAction(a, c)}>
      {t(`connections.actions.${a}`)}
    </Button>
  );
  return (
    <Card data-testid={`connection-card-${c.id}`} aria-label={c.name}>
      <CardHead>
        <ChannelMark channel={c.channel} size={28} />
        <strong>{c.name}</strong>
        <StatusMark
          $tone={look.tone}
          data-testid={`connection-status-${c.id}`}
          data-status={c.status}
          role="img"
          aria-label={tip}
          title={tip}
        >
          {look.icon === 'spinner' ? <Spinner $size={18} /> : <Icon name={look.icon} />}
        </StatusMark>
      </CardHead>
      <RoleLabel $role={role}>{t(`connections.labels.${role}`)}</RoleLabel>
      <Meta>
        <span>{c.number || t('connections.card.noNumber')}</span>
        {updated && <span data-testid={`connection-updated-${c.id}`}>{t('connections.card.updatedAt', { time: updated })}</span>}
      </Meta>
      {c.channel === 'socket' && <WebChatEmbed connection={c} />}
      {manage && (
        <Actions>
          {cardActions(c).map(button)}
          <RowActions
            editLabel={t('connections.actions.edit')}
            deleteLabel={t('connections.actions.delete')}
            onEdit={() => onAction('edit', c)}
            onDelete={() => onAction('delete', c)}
          />
        </Actions>
      )}
    </Card>
  );
});
