// A contact's location extra info, read the way the server reads it
// (engine/location.go, ParseLocation): "lat,lng", a geo: URI, a Google Maps link or an
// OpenStreetMap link. Both parsers are held to engine/testdata/locations.json.
export interface LatLng {
  lat: number;
  lng: number;
}

export const locationExtraInfoName = 'location';
const maxLocationLen = 2048;

// Whitespace as Go's regexp \s reads it (ASCII only), so both sides agree.
const sp = '[ \\t\\n\\f\\r]*';
const degree = '[+-]?[0-9]{1,3}(?:\\.[0-9]{1,15})?';
const pairRe = new RegExp(`^${sp}(${degree})${sp},${sp}(${degree})${sp}$`);
const atRe = new RegExp(`@(${degree}),(${degree})(?:,|$)`);
const pinRe = new RegExp(`!3d(${degree})!4d(${degree})`);
const altRe = /^[+-]?[0-9]{1,6}(?:\.[0-9]{1,6})?$/;
const osmHashRe = new RegExp(`^map=[0-9]{1,2}/(${degree})/(${degree})$`);
const googleHost = /^(?:www\.|maps\.)?google\.[a-z]{2,3}(?:\.[a-z]{2})?$/;

// Go's strings.TrimSpace (unicode.IsSpace), which differs from String.trim: it keeps
// U+FEFF (a byte-order mark is not a space) and strips U+0085 (NEL).
const goSpace = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const goTrimRe = new RegExp(`^${goSpace}+|${goSpace}+$`, 'g');
const goTrim = (s: string) => s.replace(goTrimRe, '');

// The length Go's len counts: UTF-8 bytes, not UTF-16 units.
const utf8 = new TextEncoder();

function point(lat: string, lng: string): LatLng | null {
  const la = Number(lat);
  const ln = Number(lng);
  if (!Number.isFinite(la) || !Number.isFinite(ln) || la < -90 || la > 90 || ln < -180 || ln > 180) return null;
  return { lat: la, lng: ln };
}

function pair(s: string | null): LatLng | null {
  const m = s === null ? null : pairRe.exec(s);
  return m ? point(m[1], m[2]) : null;
}

function google(u: URL, host: string): LatLng | null {
  let path = u.pathname;
  if (!path.startsWith('/maps') && !host.startsWith('maps.')) return null;
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep the escaped path, as the server does
  }
  const pin = pinRe.exec(path);
  if (pin) return point(pin[1], pin[2]);
  for (const key of ['q', 'query', 'll', 'center', 'destination']) {
    const p = pair(u.searchParams.get(key));
    if (p) return p;
  }
  const at = atRe.exec(path);
  if (at) return point(at[1], at[2]);
  for (const seg of path.split('/')) {
    const p = pair(seg);
    if (p) return p;
  }
  return null;
}

function osm(u: URL): LatLng | null {
  const lat = u.searchParams.get('mlat');
  const lng = u.searchParams.get('mlon');
  if (lat && lng) return pair(`${lat},${lng}`);
  const m = osmHashRe.exec(u.hash.replace(/^#/, ''));
  return m ? point(m[1], m[2]) : null;
}

// parseLocation answers the point of a location value, or null when it is not one.
export function parseLocation(raw: string): LatLng | null {
  if (raw.length > maxLocationLen || utf8.encode(raw).length > maxLocationLen) return null;
  const s = goTrim(raw);
  const direct = pair(s);
  if (direct) return direct;
  if (s.toLowerCase().startsWith('geo:')) {
    let rest = s.slice(4);
    const cut = rest.search(/[;?]/);
    if (cut >= 0) rest = rest.slice(0, cut);
    let parts = rest.split(',');
    if (parts.length === 3) {
      if (!altRe.test(parts[2])) return null;
      parts = parts.slice(0, 2);
    }
    return parts.length === 2 ? pair(`${parts[0]},${parts[1]}`) : null;
  }
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  const host = u.hostname.toLowerCase();
  if (googleHost.test(host)) return google(u, host);
  if (host === 'openstreetmap.org' || host === 'www.openstreetmap.org') return osm(u);
  return null;
}

// contactLocation: the first location extra info of a contact, parsed (null when it
// has none or it does not parse).
export function contactLocation(extraInfo: { name: string; value: string }[] | null | undefined): { value: string; point: LatLng | null } | null {
  const info = (extraInfo ?? []).find((x) => x.name.trim().toLowerCase() === locationExtraInfoName);
  return info ? { value: info.value, point: parseLocation(info.value) } : null;
}
