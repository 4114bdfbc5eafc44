// /connections (spec section 2): a card per connection of the tenant with its status,
// live from the realtime "whatsapp" (rows created, changed, removed) and
// "whatsappSession" (session status and QR code) events; the header adds WhatsApp and
// the cloud channels, WABA twice: the manual form and Meta's embedded signup
// (EmbeddedSignupButton, which falls back to the form when the server lacks the app). Session and edit buttons need connections:manage (supervisors
// and up); everyone may look. The rows come from useConnections, shared with the drawer.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { connectionsApi } from '../../api/endpoints';
import type { Connection } from '../../api/types';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { toastError } from '../../app/errors';
import { toast } from '../../components/toast/toastStore';
import { Icon } from '../../components/Icon';
import { Button, Muted } from '../../components/primitives';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Spinner } from '../../components/Splash';
import { Header, Page, Title } from '../../components/pageStyle';
import { ConnectionCard, type CardAction } from './ConnectionCard';
import { ConnectionModal } from './ConnectionModal';
import { QrDialog } from './QrDialog';
import { CloudDialog, type CloudKind } from './CloudDialog';
import { EmbeddedSignupButton } from './EmbeddedSignupButton';
import { useConnections } from './useConnections';
import { Grid } from './style';

type Confirm = { kind: 'delete' | 'wipe' | 'disconnect'; c: Connection };

export default function ConnectionsPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageConnections);
  const [editing, setEditing] = useState<Connection | 'new' | null>(null);
  const [qrFor, setQrFor] = useState<number | null>(null);
  const [cloud, setCloud] = useState<CloudKind | null>(null);
  // The manual WABA form opened by the embedded signup button: it says why.
  const [embeddedNote, setEmbeddedNote] = useState(false);
  const [confirm, setConfirm] = useState<Confirm | null>(null);

  const { items, error, reload, upsert, drop } = useConnections();
  // A load failed before the page opened (the drawer reads the same rows): try again;
  // a failure from now on is a toast.
  const stale = useRef(error);
  useEffect(() => {
    if (stale.current !== undefined) reload();
  }, [reload]);
  useEffect(() => {
    if (error !== undefined && error !== stale.current) toastError(error);
  }, [error]);

  const sorted = useMemo(() => [...(items ?? [])].sort((a, b) => a.id - b.id), [items]);
  const qrConnection = sorted.find((c) => c.id === qrFor) ?? null;
  const closeQr = useCallback(() => setQrFor(null), []);

  const onAction = useCallback(
    (a: CardAction, c: Connection) => {
      switch (a) {
        case 'qrcode':
          setQrFor(c.id);
          return;
        case 'edit':
          setEditing(c);
          return;
        case 'delete':
        case 'wipe':
        case 'disconnect':
          setConfirm({ kind: a, c });
          return;
        case 'hub':
          connectionsApi.hubRegister(c.id).then(() => toast.success(t('connections.toasts.hub')), toastError);
          return;
        case 'retry':
        case 'newQr':
          connectionsApi.renew(c.id).then((got) => {
            if (got) upsert(got);
            if (a === 'newQr' && c.channel === 'whatsapp') setQrFor(c.id);
          }, toastError);
          return;
      }
    },
    [t, upsert],
  );

  const runConfirm = () => {
    const x = confirm;
    setConfirm(null);
    if (!x) return;
    if (x.kind === 'delete') {
      connectionsApi.remove(x.c.id).then(() => {
        drop(x.c.id);
        toast.success(t('connections.toasts.deleted'));
      }, toastError);
    } else {
      (x.kind === 'wipe' ? connectionsApi.wipe(x.c.id) : connectionsApi.disconnect(x.c.id)).then((got) => {
        if (got) upsert(got);
      }, toastError);
    }
  };

  const add = (kind: CloudKind, label: string) => (
    <Button type="button" $variant="secondary" onClick={() => setCloud(kind)}>
      {t(label as 'connections.actions.addWaba')}
    </Button>
  );

  return (
    <Page>
      <Header>
        <Title>{t('connections.title')}</Title>
        {manage && (
          <>
            <Button type="button" onClick={() => setEditing('new')}>
              <Icon name="add" size={18} />
              {t('connections.actions.addWhatsapp')}
            </Button>
            {add('waba', 'connections.actions.addWaba')}
            <EmbeddedSignupButton
              onManual={() => {
                setEmbeddedNote(true);
                setCloud('waba');
              }}
              onCreated={upsert}
            />
            {add('facebook', 'connections.actions.addFacebook')}
            {add('instagram', 'connections.actions.addInstagram')}
            {add('telegram', 'connections.actions.addTelegram')}
          </>
        )}
      </Header>
      {items === null ? (
        <Spinner />
      ) : sorted.length === 0 ? (
        <Muted>{t('connections.empty')}</Muted>
      ) : (
        <Grid aria-label={t('connections.title')}>
          {sorted.map((c) => (
            <ConnectionCard key={c.id} connection={c} manage={manage} onAction={onAction} />
          ))}
        </Grid>
      )}
      {editing !== null && (
        <ConnectionModal
          connection={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(c) => {
            upsert(c);
            toast.success(t('connections.toasts.saved'));
          }}
        />
      )}
      {qrConnection && <QrDialog connection={qrConnection} onClose={closeQr} />}
      {cloud && (
        <CloudDialog
          kind={cloud}
          note={cloud === 'waba' && embeddedNote ? t('connections.embedded.notConfigured') : undefined}
          onClose={() => {
            setCloud(null);
            setEmbeddedNote(false);
          }}
          onDone={reload}
        />
      )}
      <ConfirmDialog
        open={confirm !== null}
        title={confirm ? t(`connections.confirm.${confirm.kind}Title`) : ''}
        confirmLabel={confirm ? t(`connections.actions.${confirm.kind}`) : ''}
        onClose={() => setConfirm(null)}
        onConfirm={runConfirm}
      >
        {confirm ? t(`connections.confirm.${confirm.kind}Body`, { name: confirm.c.name }) : ''}
      </ConfirmDialog>
    </Page>
  );
}
