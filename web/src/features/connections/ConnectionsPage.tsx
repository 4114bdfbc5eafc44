// /connections (spec section 2): a card per connection of the tenant with its status,
// live from the realtime "whatsapp" (rows created, changed, removed) and
// "whatsappSession" (session status and QR code) events; the header adds WhatsApp and
// the cloud channels, WABA twice: the manual form and Meta's embedded signup
// (EmbeddedSignupButton, which falls back to the form when the server lacks the app). Session and edit buttons need connections:manage (supervisors
// and up); everyone may look.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { connectionsApi } from '../../api/endpoints';
import type { Connection, ConnectionEvent, ConnectionSessionEvent } from '../../api/types';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { useRealtimeEvent, useResync } from '../../app/realtime';
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
import { applySession, withSession, type SessionState } from './status';
import { Grid } from './style';

type Confirm = { kind: 'delete' | 'wipe' | 'disconnect'; c: Connection };

export default function ConnectionsPage() {
  const { t } = useTranslation();
  const { can } = usePermissions();
  const manage = can(perms.manageConnections);
  const [items, setItems] = useState<Connection[] | null>(null);
  const [editing, setEditing] = useState<Connection | 'new' | null>(null);
  const [qrFor, setQrFor] = useState<number | null>(null);
  const [cloud, setCloud] = useState<CloudKind | null>(null);
  // The manual WABA form opened by the embedded signup button: it says why.
  const [embeddedNote, setEmbeddedNote] = useState(false);
  const [confirm, setConfirm] = useState<Confirm | null>(null);

  // The latest session state seen per connection, laid over rows read earlier or
  // answered later than it (a create's answer may trail its first QR code).
  const sessions = useRef(new Map<number, SessionState>());
  const fresh = useCallback((c: Connection) => withSession(c, sessions.current.get(c.id)), []);

  const load = useCallback(() => {
    connectionsApi.list().then((cs) => setItems((cs ?? []).map(fresh)), toastError);
  }, [fresh]);
  useEffect(load, [load]);
  useResync(load);

  const upsert = useCallback((got: Connection) => {
    const c = fresh(got);
    setItems((list) => {
      const cur = list ?? [];
      const next = cur.some((x) => x.id === c.id) ? cur.map((x) => (x.id === c.id ? c : x)) : [...cur, c];
      // One default per tenant: a new default clears the old one.
      return c.isDefault ? next.map((x) => (x.id !== c.id && x.isDefault ? { ...x, isDefault: false } : x)) : next;
    });
  }, [fresh]);
  const drop = useCallback((id: number) => setItems((list) => (list ?? []).filter((x) => x.id !== id)), []);

  useRealtimeEvent<ConnectionEvent>('whatsapp', (e) => {
    if (e.action === 'delete') {
      if (e.whatsappId) drop(e.whatsappId);
    } else if (e.whatsapp) upsert(e.whatsapp);
  });
  useRealtimeEvent<ConnectionSessionEvent>('whatsappSession', (e) => {
    if (!e.session) return;
    sessions.current.set(e.session.id, e.session);
    setItems((list) => (list ? applySession(list, e.session) : list));
  });

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
          connectionsApi.hubRegister(c).then(() => toast.success(t('connections.toasts.hub')), toastError);
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
          onDone={load}
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
