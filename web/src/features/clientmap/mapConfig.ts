// The tile server of the maps (GET /maps/config), read once per page load.
import { mapsApi, type MapConfig } from '../../api/supervision';

let pending: Promise<MapConfig> | null = null;

export function loadMapConfig(): Promise<MapConfig> {
  pending ??= mapsApi.config().catch((e: unknown) => {
    pending = null;
    throw e;
  });
  return pending;
}
