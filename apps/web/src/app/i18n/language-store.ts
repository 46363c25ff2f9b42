import { Injectable, InjectionToken, LOCALE_ID, inject, signal } from '@angular/core';
import type { OperatorLanguage, OperatorView } from '@corpus-chat/contracts';
import { AuthApi } from '../auth/auth-api';
import { describeHttpError } from '../http/api-error';
import { isLanguage, rememberLanguage } from './language';

/** Reloads the page: translations load before bootstrap, so a new language needs a fresh start. */
export const PAGE_RELOAD = new InjectionToken<() => void>('PAGE_RELOAD', {
  providedIn: 'root',
  factory: () => () => location.reload(),
});

/**
 * The interface's language: the one loaded at start (`LOCALE_ID`), switching (stored with the
 * operator, cached locally, then a reload) and following the operator's stored choice after sign-in.
 */
@Injectable({ providedIn: 'root' })
export class LanguageStore {
  private readonly api = inject(AuthApi);
  private readonly reload = inject(PAGE_RELOAD);
  private readonly saving = signal(false);
  private readonly failure = signal<string | null>(null);

  /** The language this page runs in. */
  readonly active: OperatorLanguage = inject(LOCALE_ID).toLowerCase().startsWith('ru') ? 'ru' : 'en';
  readonly busy = this.saving.asReadonly();
  readonly error = this.failure.asReadonly();

  /** Stores `language` as the operator's choice, then restarts the page in it. */
  async choose(language: OperatorLanguage): Promise<void> {
    if (language === this.active || this.saving()) return;
    this.saving.set(true);
    this.failure.set(null);
    try {
      await this.api.updateMe({ language });
    } catch (err) {
      this.saving.set(false);
      this.failure.set(describeHttpError(err));
      return;
    }
    rememberLanguage(language);
    this.reload();
  }

  /**
   * After sign-in (or on another device): restarts once in the operator's stored language when it
   * is not the loaded one. Without storage the next start could not pick it, so no reload then.
   */
  follow(operator: OperatorView): void {
    const language: unknown = operator.language;
    if (!isLanguage(language) || language === this.active) return;
    if (rememberLanguage(language)) this.reload();
  }
}
