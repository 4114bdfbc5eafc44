// useT gives the translate function to components that mount by the hundred: the rows
// of virtualised lists (tickets, messages), which mount and unmount as the list scrolls.
// react-i18next's useTranslation copies every property descriptor of the i18n instance
// for each component instance that mounts (about 70 µs each in Chromium, three per
// ticket row: the largest script cost of a list's first render). useT shares one fixed
// t per language instead, and re-renders its component when the language changes.
import { useSyncExternalStore } from 'react';
import type { TFunction } from 'i18next';
import i18n from './index';

const fixed = new Map<string, TFunction>();

function subscribe(onChange: () => void): () => void {
  i18n.on('languageChanged', onChange);
  return () => i18n.off('languageChanged', onChange);
}

const language = (): string => i18n.language;

export function useT(): TFunction {
  const lng = useSyncExternalStore(subscribe, language, language);
  let t = fixed.get(lng);
  if (!t) {
    t = i18n.getFixedT(lng);
    fixed.set(lng, t);
  }
  return t;
}
