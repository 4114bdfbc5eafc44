// The contact drawer's location: the same map, small, with the contact's marker. The
// map chunk loads only when a contact with a readable location is shown.
import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Muted } from '../../components/primitives';
import type { MapConfig } from '../../api/supervision';
import { loadMapConfig } from './mapConfig';
import type { LatLng } from './location';

const ContactsMap = lazy(() => import('./ContactsMap'));

export function ContactLocationMap({ id, name, point }: { id: number; name: string; point: LatLng }) {
  const { t } = useTranslation();
  const [config, setConfig] = useState<MapConfig | null>(null);
  useEffect(() => {
    let live = true;
    loadMapConfig()
      .then((c) => live && setConfig(c))
      .catch(() => live && setConfig({ tileUrl: '', attribution: '' }));
    return () => {
      live = false;
    };
  }, []);
  if (!config) return null;
  const label = t('supervision.map.contactLocation', { name });
  return (
    <Suspense fallback={<Muted>{t('supervision.loading')}</Muted>}>
      <ContactsMap points={[{ key: id, ...point, title: name }]} tileUrl={config.tileUrl} attribution={config.attribution} height="160px" label={label} />
    </Suspense>
  );
}
