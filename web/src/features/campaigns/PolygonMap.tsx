// The campaign's geographic segment: a map on which the user draws one polygon with
// leaflet-draw; contacts whose location lies inside it join the campaign. Tiles come
// from the configured server (MAP_TILE_URL) or none: a blank background. Loaded
// lazily with Leaflet, so the campaign page's first paint does not wait for it.
import 'leaflet/dist/leaflet.css';
import 'leaflet-draw/dist/leaflet.draw.css';
import { useEffect } from 'react';
import L from 'leaflet';
import 'leaflet-draw';
import { MapContainer, TileLayer, useMap } from 'react-leaflet';
import type { LatLngPoint } from './api';

function DrawControl({ value, onChange }: { value: LatLngPoint[]; onChange: (p: LatLngPoint[]) => void }) {
  const map = useMap();
  useEffect(() => {
    const drawn = new L.FeatureGroup();
    map.addLayer(drawn);
    if (value.length >= 3) drawn.addLayer(L.polygon(value.map((p) => [p.lat, p.lng] as L.LatLngTuple)));
    const control = new L.Control.Draw({
      draw: { polygon: { allowIntersection: false }, polyline: false, rectangle: false, circle: false, marker: false, circlemarker: false },
      edit: { featureGroup: drawn, remove: true },
    });
    map.addControl(control);
    const read = (layer: L.Layer) => {
      const ring = (layer as L.Polygon).getLatLngs()[0] as L.LatLng[];
      onChange(ring.map((p) => ({ lat: p.lat, lng: p.lng })));
    };
    const created = (e: L.LeafletEvent) => {
      drawn.clearLayers();
      const layer = (e as L.DrawEvents.Created).layer;
      drawn.addLayer(layer);
      read(layer);
    };
    const edited = (e: L.LeafletEvent) => (e as L.DrawEvents.Edited).layers.eachLayer(read);
    const deleted = () => onChange([]);
    map.on(L.Draw.Event.CREATED, created);
    map.on(L.Draw.Event.EDITED, edited);
    map.on(L.Draw.Event.DELETED, deleted);
    return () => {
      map.off(L.Draw.Event.CREATED, created);
      map.off(L.Draw.Event.EDITED, edited);
      map.off(L.Draw.Event.DELETED, deleted);
      map.removeControl(control);
      map.removeLayer(drawn);
    };
    // The control is built once per map; later values come from the drawing itself.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [map]);
  return null;
}

export default function PolygonMap({
  value,
  onChange,
  tileUrl,
  attribution,
  label,
}: {
  value: LatLngPoint[];
  onChange: (p: LatLngPoint[]) => void;
  tileUrl: string;
  attribution: string;
  label: string;
}) {
  return (
    <div role="region" aria-label={label} style={{ height: 320 }}>
      <MapContainer center={[-15.6, -56.1]} zoom={5} style={{ height: '100%' }}>
        {tileUrl && <TileLayer url={tileUrl} attribution={attribution} />}
        <DrawControl value={value} onChange={onChange} />
      </MapContainer>
    </div>
  );
}
