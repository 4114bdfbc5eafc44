// Locale files: locales/<lng>/<feature>.json, each holding the keys under <feature>.
// They are merged into one `translation` namespace so keys read `feature.area.leaf`
// (backend error codes: `backendErrors.ERR_…`).
const files = import.meta.glob<Record<string, unknown>>('./locales/*/*.json', { eager: true, import: 'default' });

export const languages = ['pt-BR', 'en', 'es'] as const;
export type Language = (typeof languages)[number];
export const defaultLanguage: Language = 'pt-BR';
export const fallbackLanguage: Language = 'en';

export type Tree = { [key: string]: string | Tree };

export const resources: Record<string, { translation: Tree }> = {};
for (const [path, content] of Object.entries(files)) {
  const m = /\.\/locales\/([^/]+)\/([^/]+)\.json$/.exec(path);
  if (!m) continue;
  const [, lng, feature] = m;
  resources[lng] ??= { translation: {} };
  resources[lng].translation[feature] = content as Tree;
}

// flatten lists every leaf key of a tree as dotted paths.
export function flatten(tree: Tree, prefix = ''): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.push(key);
    else out.push(...flatten(v, key));
  }
  return out;
}
