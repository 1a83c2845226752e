// Root of the Temporal UI app, as in Temporal's own ui repository: client-side only, i18n set up first.

import { i18nNamespaces } from '@temporalio/ui/i18n/index';
import resources from '@temporalio/ui/i18n/locales/index';
import i18next from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';

export const ssr = false;

export function load() {
  i18next.use(LanguageDetector).init({
    fallbackLng: 'en',
    load: 'languageOnly',
    ns: i18nNamespaces,
    defaultNS: 'common',
    detection: {
      order: ['querystring', 'localStorage', 'navigator'],
      caches: ['localStorage'],
      lookupQuerystring: 'lng',
      lookupLocalStorage: 'locale',
    },
    resources,
  });
}
