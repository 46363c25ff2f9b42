import { DOCUMENT, Injectable, computed, inject, signal } from '@angular/core';
import { readStored, writeStored } from '../shared/storage';

/** What the operator chose: follow the system's preference, or always light or dark. */
export type ThemeChoice = 'system' | 'light' | 'dark';

/** localStorage key of the operator's choice (absent: follow the system). */
export const THEME_STORAGE_KEY = 'cc-theme';

const CHOICES: readonly ThemeChoice[] = ['system', 'light', 'dark'];

/** Light or dark: `prefers-color-scheme` until the operator picks (localStorage); set as `data-theme`. */
@Injectable({ providedIn: 'root' })
export class ThemeStore {
  private readonly document = inject(DOCUMENT);
  private readonly media = this.document.defaultView?.matchMedia?.('(prefers-color-scheme: dark)') ?? null;
  private readonly systemDark = signal(this.media?.matches ?? false);
  private readonly chosen = signal<ThemeChoice>(this.readChoice());

  readonly choice = this.chosen.asReadonly();
  /** The scheme in effect. */
  readonly scheme = computed((): 'light' | 'dark' => {
    const choice = this.chosen();
    return choice === 'system' ? (this.systemDark() ? 'dark' : 'light') : choice;
  });

  constructor() {
    this.media?.addEventListener('change', (e) => {
      this.systemDark.set(e.matches);
      this.apply();
    });
    this.apply();
  }

  /** Stores `choice` and applies it at once. */
  choose(choice: ThemeChoice): void {
    this.chosen.set(choice);
    writeStored(THEME_STORAGE_KEY, choice === 'system' ? null : choice);
    this.apply();
  }

  private apply(): void {
    this.document.documentElement.dataset['theme'] = this.scheme();
  }

  private readChoice(): ThemeChoice {
    const stored = readStored(THEME_STORAGE_KEY) as ThemeChoice | null;
    return stored && CHOICES.includes(stored) ? stored : 'system';
  }
}
