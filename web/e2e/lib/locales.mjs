// The app's own locale files, read the way src/i18n/resources.ts merges them
// (locales/<lng>/<feature>.json → keys `feature.area.leaf`), so the browser tests hold
// no UI text of their own: they ask for t(key) in the language under test.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../src/i18n/', import.meta.url).pathname;
const localesDir = join(root, 'locales');
export const fallbackLanguage = 'en';

// The key the app reads its language from (src/i18n/index.ts), taken from the source so
// that a rename there cannot leave these tests silently running in the default language.
export const languageStorageKey = (() => {
  const src = readFileSync(join(root, 'index.ts'), 'utf8');
  const m = /languageStorageKey\s*=\s*'([^']+)'/.exec(src);
  if (!m) throw new Error('e2e: languageStorageKey not found in src/i18n/index.ts');
  return m[1];
})();

export const languages = readdirSync(localesDir).filter((d) => !d.startsWith('.')).sort();

const trees = Object.fromEntries(
  languages.map((lng) => [
    lng,
    Object.fromEntries(
      readdirSync(join(localesDir, lng))
        .filter((f) => f.endsWith('.json'))
        .map((f) => [f.slice(0, -5), JSON.parse(readFileSync(join(localesDir, lng, f), 'utf8'))]),
    ),
  ]),
);

function lookup(lng, key) {
  let node = trees[lng];
  for (const part of key.split('.')) {
    if (node == null || typeof node !== 'object') return undefined;
    node = node[part];
  }
  return typeof node === 'string' ? node : undefined;
}

// translator(lng) → t(key, values): i18next's plural suffixes (_one, _other…) and
// {{name}} interpolation, with the app's fallback language. A missing key throws: a test
// must not pass by looking for "tickets.tabs.pending" on screen.
export function translator(lng) {
  if (!trees[lng]) throw new Error(`e2e: no locale ${lng}`);
  const plural = new Intl.PluralRules(lng);
  return function t(key, values = {}) {
    const keys = typeof values.count === 'number' ? [`${key}_${plural.select(values.count)}`, `${key}_other`, key] : [key];
    for (const l of [lng, fallbackLanguage]) {
      for (const k of keys) {
        const s = lookup(l, k);
        if (s !== undefined) return s.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name) => String(values[name] ?? ''));
      }
    }
    throw new Error(`e2e: missing translation ${key} (${lng})`);
  };
}

export function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// startsWith builds a regexp for accessible names that begin with a label (tabs carry a
// count badge after their name).
export function startsWith(text) {
  return new RegExp(`^${escapeRegExp(text)}`);
}
