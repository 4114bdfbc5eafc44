import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { defaultLanguage, fallbackLanguage, languages, resources } from './resources';

export const languageStorageKey = 'i18nextLng';

function initialLanguage(): string {
  try {
    const stored = window.localStorage.getItem(languageStorageKey);
    if (stored && (languages as readonly string[]).includes(stored)) return stored;
  } catch {
    // no storage: default
  }
  return defaultLanguage;
}

void i18n.use(initReactI18next).init({
  resources,
  lng: initialLanguage(),
  fallbackLng: fallbackLanguage,
  supportedLngs: [...languages],
  interpolation: { escapeValue: false }, // React escapes
  returnNull: false,
  initAsync: false,
});

// The document's language follows the interface (screen readers, hyphenation, spell check).
function syncDocumentLanguage(lng: string): void {
  if (typeof document !== 'undefined' && lng) document.documentElement.lang = lng;
}
i18n.on('languageChanged', syncDocumentLanguage);
syncDocumentLanguage(i18n.language);

export function setLanguage(lng: string): void {
  void i18n.changeLanguage(lng);
  try {
    window.localStorage.setItem(languageStorageKey, lng);
  } catch {
    // ignore
  }
}

export default i18n;
