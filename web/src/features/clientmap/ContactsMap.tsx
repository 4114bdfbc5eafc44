/// <reference types="leaflet.markercluster" />
// The Leaflet map of the client maps and of the contact drawer: clustered markers
// (leaflet.markercluster through react-leaflet-cluster), a popup per contact, tiles
// from the configured server or none (a blank background: no internet needed). Loaded
// lazily, with Leaflet and its CSS, so the inbox's first bundle does not carry them.
// Markers are divIcons drawn by CSS (no marker images to load), and the cluster
// bubbles use the theme's colours so their counts keep AA contrast.
import 'leaflet/dist/leaflet.css';
import 'react-leaflet-cluster/dist/assets/MarkerCluster.css';
import { useEffect, useMemo, type ReactNode } from 'react';
import L from 'leaflet';
import { MapContainer, Marker, Popup, TileLayer, useMap } from 'react-leaflet';
import MarkerClusterGroup from 'react-leaflet-cluster';
import type { LatLng } from './location';
import { MapFrame } from './style';

export interface MapPoint extends LatLng {
  key: number;
  title: string; // the marker's accessible name
  popup?: ReactNode;
}

export interface ContactsMapProps {
  points: MapPoint[];
  tileUrl: string;
  attribution: string;
  height: string;
  label: string;
  // zoom when the map shows a single point (the contact drawer).
  singleZoom?: number;
}

const markerIcon = L.divIcon({ className: 'atende-marker', html: '<span></span>', iconSize: [22, 22], iconAnchor: [11, 22], popupAnchor: [0, -20] });

function clusterIcon(cluster: L.MarkerCluster): L.DivIcon {
  const n = cluster.getChildCount();
  const size = n < 10 ? 34 : n < 100 ? 40 : 48;
  return L.divIcon({ className: 'atende-cluster', html: `<span>${n}</span>`, iconSize: [size, size] });
}

// Brazil, when there is nothing to show.
const defaultCenter: L.LatLngExpression = [-14.2, -51.9];

// FitPoints frames the points whenever their set changes.
function FitPoints({ points, singleZoom }: { points: MapPoint[]; singleZoom: number }) {
  const map = useMap();
  const key = points.map((p) => `${p.key}:${p.lat},${p.lng}`).join('|');
  useEffect(() => {
    if (points.length === 0) return;
    if (points.length === 1) {
      map.setView([points[0].lat, points[0].lng], singleZoom);
      return;
    }
    map.fitBounds(L.latLngBounds(points.map((p) => [p.lat, p.lng] as L.LatLngTuple)), { padding: [24, 24], maxZoom: 14 });
  }, [map, key, singleZoom]);
  return null;
}

export default function ContactsMap({ points, tileUrl, attribution, height, label, singleZoom = 13 }: ContactsMapProps) {
  const markers = useMemo(
    () =>
      points.map((p) => (
        <Marker key={p.key} position={[p.lat, p.lng]} icon={markerIcon} title={p.title} alt={p.title}>
          {p.popup && <Popup>{p.popup}</Popup>}
        </Marker>
      )),
    [points],
  );
  return (
    <MapFrame style={{ height }} role="region" aria-label={label} data-testid="contacts-map">
      <MapContainer center={defaultCenter} zoom={4} minZoom={2} maxZoom={18} style={{ height: '100%', width: '100%' }} worldCopyJump>
        {tileUrl && <TileLayer url={tileUrl} attribution={attribution} />}
        <MarkerClusterGroup chunkedLoading iconCreateFunction={clusterIcon} showCoverageOnHover={false}>
          {markers}
        </MarkerClusterGroup>
        <FitPoints points={points} singleZoom={singleZoom} />
      </MapContainer>
    </MapFrame>
  );
}
