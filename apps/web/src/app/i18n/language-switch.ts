import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import type { OperatorLanguage } from '@corpus-chat/contracts';
import { LanguageStore } from './language-store';

/** The language picker of the navigation: saved with the operator, then the page restarts in it. */
@Component({
  selector: 'cc-language-switch',
  template: `
    <label class="language nav-picker">
      <span class="sr-only" i18n="@@language.label">Language</span>
      <select
        [value]="language.active"
        [disabled]="language.busy()"
        (change)="choose($any($event.target).value)"
        data-testid="language"
        title="Language"
        i18n-title="@@language.label"
      >
        <!-- Each language names itself, so an operator who cannot read the other still finds theirs. -->
        <option value="en" lang="en">English</option>
        <option value="ru" lang="ru">Русский</option>
      </select>
    </label>
    @if (language.error(); as error) {
      <p class="error" role="alert">{{ error }}</p>
    }
  `,
  styles: `
    .error {
      margin: 0.3rem 0 0;
      font-size: 0.75rem;
      color: #fca5a5;
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class LanguageSwitch {
  protected readonly language = inject(LanguageStore);

  protected choose(language: OperatorLanguage): void {
    void this.language.choose(language);
  }
}
