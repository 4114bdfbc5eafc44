// A fuzz-style property test of parseLocation, the mirror of the Go parser's fuzz
// target (engine.FuzzParseLocation): thousands of generated hostile strings — random
// characters from a hostile alphabet, and mutations of the shared golden cases — must
// never throw, must answer null or a finite point in range, the same twice, and must
// leave the golden cases' answers unchanged when run between them (no state kept in
// a regular expression). The seed is printed; set LOCATION_SEED to replay one.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseLocation, type LatLng } from './location';

const golden = JSON.parse(readFileSync(resolve(process.cwd(), '../engine/testdata/locations.json'), 'utf8')) as {
  in: string;
  ok: boolean;
  lat?: number;
  lng?: number;
}[];

// mulberry32: a small seeded generator, so a failure can be replayed.
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pieces = [
  ...'0123456789+-.,;:?&=#/!@%eE ',
  '\t', '\n', '\r', '\v', '\f', '\u0000', '\u0085', '\u00a0', '\u2028', '\u2029', '\ufeff', '\u200b', '\u3000',
  '٣', '１', '𝟙', '😀', 'é', 'İ', '\ud800', // a lone surrogate
  'NaN', 'Infinity', '-Infinity', '1e3', '0x1F', '1_000', '999', '90', '180', '-90.0000000000000001',
  'geo:', 'GEO:', ';u=35', ',120.5', 'https://', 'http://', 'javascript:', 'data:', 'file://',
  'www.google.com', 'maps.google.com', 'google.com.br', 'google.evil.com', 'maps.app.goo.gl', 'openstreetmap.org',
  '/maps', '/maps/place/', '/maps/@', '!3d', '!4d', '?q=', '&query=', '&ll=', '?center=', '&destination=',
  '?mlat=', '&mlon=', '#map=', '15z', '%2C', '%40', '%', '%zz', '..', '//', '\\', '[', ']', '(', ')',
];

function randomString(r: () => number): string {
  const n = Math.floor(r() * 24);
  let s = '';
  for (let i = 0; i < n; i++) s += pieces[Math.floor(r() * pieces.length)];
  return s;
}

function mutate(r: () => number, s: string): string {
  const at = Math.floor(r() * (s.length + 1));
  const piece = pieces[Math.floor(r() * pieces.length)];
  switch (Math.floor(r() * 8)) {
    case 0:
      return s.slice(0, at) + piece + s.slice(at); // insert
    case 1:
      return s.slice(0, at) + s.slice(at + 1 + Math.floor(r() * 3)); // delete
    case 2:
      return s.slice(0, at) + piece + s.slice(at + 1); // replace
    case 3:
      return s.slice(0, at); // truncate
    case 4:
      return s + s; // repeat
    case 5:
      return s.toUpperCase();
    case 6:
      try {
        return encodeURIComponent(s);
      } catch {
        return s; // a lone surrogate has no encoding
      }
    default:
      return piece + s + piece;
  }
}

function checkPoint(input: string, got: LatLng | null) {
  if (got === null) return;
  const ok =
    Object.keys(got).sort().join() === 'lat,lng' &&
    Number.isFinite(got.lat) &&
    Number.isFinite(got.lng) &&
    got.lat >= -90 &&
    got.lat <= 90 &&
    got.lng >= -180 &&
    got.lng <= 180;
  if (!ok) throw new Error(`${JSON.stringify(input)} → ${JSON.stringify(got)}: not a point in range`);
}

const expected = (c: (typeof golden)[number]) => (c.ok ? { lat: c.lat, lng: c.lng } : null);

describe('parseLocation under generated hostile input', () => {
  const seed = Number(process.env.LOCATION_SEED) || Math.floor(Math.random() * 2 ** 31);

  it(`never throws, answers a point in range or null, the same each time, and keeps the golden answers (seed ${seed})`, () => {
    const r = rng(seed);
    let points = 0;
    for (let i = 0; i < 6000; i++) {
      const base = golden[Math.floor(r() * golden.length)];
      let input = r() < 0.4 ? randomString(r) : base.in;
      for (let k = Math.floor(r() * 3) + (input === base.in ? 1 : 0); k > 0; k--) input = mutate(r, input);
      let got: LatLng | null;
      try {
        got = parseLocation(input);
      } catch (e) {
        throw new Error(`seed ${seed}: ${JSON.stringify(input)} threw ${String(e)}`);
      }
      checkPoint(input, got);
      expect(parseLocation(input)).toEqual(got);
      if (got) points++;
      // A golden case right after: nothing of the hostile input stays behind.
      const c = golden[i % golden.length];
      expect(parseLocation(c.in), `seed ${seed}, golden ${JSON.stringify(c.in)} after ${JSON.stringify(input)}`).toEqual(expected(c));
    }
    // The generator reaches the accepting paths too, not only refusals.
    expect(points).toBeGreaterThan(100);
  });

  it('answers the golden cases the same with Go spaces around them, and nothing with a byte-order mark', () => {
    for (const c of golden) {
      if (c.in.length > 2000) continue;
      expect(parseLocation(` \t${c.in}\n\u00a0`), JSON.stringify(c.in)).toEqual(expected(c));
      if (c.ok) expect(parseLocation(`\ufeff${c.in}`), JSON.stringify(c.in)).toBeNull();
    }
  });

  it('counts the length limit in UTF-8 bytes, as the server does', () => {
    const link = 'https://www.google.com/maps?q=-15.6,-56.1&x=';
    expect(parseLocation(link + 'a'.repeat(1000))).toEqual({ lat: -15.6, lng: -56.1 });
    // 2,000 UTF-16 units but over 2,048 bytes: refused on both sides.
    expect(parseLocation(link + 'á'.repeat(1100))).toBeNull();
  });
});
