import { LOCALE_ID } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';
import { loadLanguage, startupLanguage } from './app/i18n/language';

// Runtime translations: they must be loaded before the app's modules are evaluated (components and
// `$localize` constants translate as they load), hence the dynamic imports after them.
async function start(): Promise<void> {
  const language = startupLanguage();
  await loadLanguage(language);
  const [{ App }, { appConfig }] = await Promise.all([import('./app/app'), import('./app/app.config')]);
  await bootstrapApplication(App, {
    ...appConfig,
    providers: [...appConfig.providers, { provide: LOCALE_ID, useValue: language }],
  });
}

start().catch((err: unknown) => console.error(err));
