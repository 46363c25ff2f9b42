import { registerLocaleData } from '@angular/common';
import { loadTranslations } from '@angular/localize';
import { OPERATOR_LANGUAGES, type OperatorLanguage } from '@corpus-chat/contracts';
import { readStored, writeStored } from '../shared/storage';

/** localStorage key of the operator's language, read before bootstrap (the server keeps the real choice). */
export const LANGUAGE_STORAGE_KEY = 'cc-language';

/** Whether `value` is a language the interface offers. */
export function isLanguage(value: unknown): value is OperatorLanguage {
  return typeof value === 'string' && (OPERATOR_LANGUAGES as readonly string[]).includes(value);
}

/**
 * The language to start in: the operator's stored choice (cached in localStorage), else Russian
 * when the browser asks for it first, else English.
 */
export function chooseLanguage(stored: string | null, browserLanguage: string | undefined): OperatorLanguage {
  if (isLanguage(stored)) return stored;
  return browserLanguage?.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

/** `chooseLanguage` from this browser's localStorage and `navigator.language`. */
export function startupLanguage(): OperatorLanguage {
  // Storage refused (private mode): the browser's language decides until sign-in.
  return chooseLanguage(readStored(LANGUAGE_STORAGE_KEY), globalThis.navigator?.language);
}

/** Caches `language` for the next start; false when the browser refuses storage. */
export function rememberLanguage(language: OperatorLanguage): boolean {
  return writeStored(LANGUAGE_STORAGE_KEY, language);
}

/** Loads `language`'s translations and locale data; `main.ts` awaits it before importing the app. */
export async function loadLanguage(language: OperatorLanguage): Promise<void> {
  if (language === 'en') return;
  const [messages, locale] = await Promise.all([
    import('../../locale/messages.ru.json'),
    import('@angular/common/locales/ru'),
  ]);
  loadTranslations(messages.default.translations);
  registerLocaleData(locale.default, 'ru');
  $localize.locale = 'ru';
}
