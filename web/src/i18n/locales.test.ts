// Locale completeness: every key of pt-BR (the default) exists in en and es with the
// same {{placeholders}}, and every backend error code the server can answer (generated
// into errorCodes.json by a Go test) has a translation in each language.
import { flatten, languages, resources, type Tree } from './resources';

const codeFiles = import.meta.glob<string[]>('./errorCodes.json', { eager: true, import: 'default' });
const errorCodes = codeFiles['./errorCodes.json'];

function leaf(tree: Tree, key: string): string | undefined {
  let node: string | Tree | undefined = tree;
  for (const part of key.split('.')) {
    if (node === undefined || typeof node === 'string') return undefined;
    node = node[part];
  }
  return typeof node === 'string' ? node : undefined;
}

const placeholders = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

const ptBR = resources['pt-BR'].translation;
const ptKeys = flatten(ptBR);

describe('locales', () => {
  it('has the three languages', () => {
    expect(Object.keys(resources).sort()).toEqual([...languages].sort());
  });

  it.each(['en', 'es'])('%s has every pt-BR key with the same placeholders', (lng) => {
    const tree = resources[lng].translation;
    const missing = ptKeys.filter((k) => leaf(tree, k) === undefined);
    expect(missing).toEqual([]);
    const mismatched = ptKeys.filter((k) => placeholders(leaf(tree, k) ?? '').join() !== placeholders(leaf(ptBR, k)!).join());
    expect(mismatched).toEqual([]);
  });

  it.each(['en', 'es'])('%s has no key that pt-BR lacks', (lng) => {
    const extra = flatten(resources[lng].translation).filter((k) => leaf(ptBR, k) === undefined);
    expect(extra).toEqual([]);
  });

  it('has no empty text', () => {
    for (const lng of languages) {
      const tree = resources[lng].translation;
      expect(flatten(tree).filter((k) => !leaf(tree, k)?.trim())).toEqual([]);
    }
  });

  it.skipIf(!errorCodes)('translates every backend error code in every language', () => {
    expect(errorCodes!.length).toBeGreaterThan(0);
    for (const lng of languages) {
      const tree = resources[lng].translation;
      const missing = errorCodes!.filter((code) => leaf(tree, `backendErrors.${code}`) === undefined);
      expect({ lng, missing }).toEqual({ lng, missing: [] });
    }
  });

  it('has the spec’s login toast in Portuguese', () => {
    expect(leaf(ptBR, 'login.toast.success')).toBe('Login efetuado com sucesso!');
  });
});
