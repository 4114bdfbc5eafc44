// /ClientMap and /LeafletMap: the tenant's contacts with a 'location' extra info on a
// clustered Leaflet map (docs/supervision.md). A popup per contact opens its last
// ticket. Locations that do not parse are counted and listed, not drawn. The map code
// is a lazy chunk of its own.
import { lazy, Suspense, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { useRealtimeEvent } from '../../app/realtime';
import { usePermissions } from '../../app/session';
import { actions as perms } from '../../app/permissions';
import { Button, Muted } from '../../components/primitives';
import type { ContactEvent } from '../../api/types';
import { clientMapMachine } from './clientMap.machine';
import type { MapPoint } from './ContactsMap';
import { MapArea, MapPage, Notes } from './style';

const ContactsMap = lazy(() => import('./ContactsMap'));

function LiveMap() {
  const { t } = useTranslation();
  const actor = useActorRef(clientMapMachine);
  const data = useSelector(actor, (s) => s.context.data);
  const failed = useSelector(actor, (s) => s.matches('failed'));
  useRealtimeEvent<ContactEvent>('contact', (e) => {
    if (e.action === 'delete') actor.send({ type: 'contact.removed', contactId: e.contactId });
    else if (e.contact) actor.send({ type: 'contact.changed', contact: e.contact });
  });
  const points = useMemo<MapPoint[]>(
    () =>
      (data?.contacts ?? []).map((c) => ({
        key: c.contactId,
        lat: c.lat,
        lng: c.lng,
        title: c.name,
        popup: (
          <>
            <strong>{c.name}</strong>
            {c.number && <span>{c.number}</span>}
            {c.ticketId ? <Link to={`/tickets/${c.ticketId}`}>{t('supervision.map.openTicket')}</Link> : <Muted>{t('supervision.map.noTicket')}</Muted>}
          </>
        ),
      })),
    [data, t],
  );
  if (failed) {
    return (
      <Muted role="alert">
        {t('supervision.loadError')}{' '}
        <Button type="button" $small onClick={() => actor.send({ type: 'map.retry' })}>
          {t('supervision.retry')}
        </Button>
      </Muted>
    );
  }
  if (!data) return <Muted>{t('supervision.loading')}</Muted>;
  return (
    <>
      <Notes>
        <span data-testid="map-count">{t('supervision.map.count', { count: data.contacts.length })}</span>
        {!data.config.tileUrl && <span>{t('supervision.map.noTiles')}</span>}
        {data.invalidCount > 0 && (
          <details data-testid="map-invalid">
            <summary>{t('supervision.map.invalid', { count: data.invalidCount })}</summary>
            <p>{t('supervision.map.invalidHint')}</p>
            <ul>
              {data.invalid.map((x) => (
                <li key={x.contactId}>
                  {x.name}: <code>{x.value.slice(0, 120)}</code>
                </li>
              ))}
            </ul>
          </details>
        )}
      </Notes>
      <MapArea>
        <Suspense fallback={<Muted>{t('supervision.loading')}</Muted>}>
          <ContactsMap points={points} tileUrl={data.config.tileUrl} attribution={data.config.attribution} height="100%" label={t('supervision.map.label')} />
        </Suspense>
      </MapArea>
    </>
  );
}

export default function ClientMapPage({ variant = 'client' }: { variant?: 'client' | 'leaflet' }) {
  const { t } = useTranslation();
  const { can } = usePermissions();
  return (
    <MapPage>
      <h1>{t(variant === 'leaflet' ? 'supervision.map.leafletTitle' : 'supervision.map.title')}</h1>
      {can(perms.viewClientMap) ? <LiveMap /> : <Muted role="alert">{t('supervision.noPermission')}</Muted>}
    </MapPage>
  );
}
