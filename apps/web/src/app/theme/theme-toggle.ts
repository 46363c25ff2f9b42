import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { ThemeStore, type ThemeChoice } from './theme-store';

/** The theme picker of the navigation: follow the system, or always light or dark (stored). */
@Component({
  selector: 'cc-theme-toggle',
  template: `
    <label class="theme">
      <span class="sr-only" i18n="@@theme.label">Theme</span>
      <select [value]="theme.choice()" (change)="choose($any($event.target).value)" data-testid="theme" title="Theme" i18n-title="@@theme.label">
        <option value="system" i18n="@@theme.system">System theme</option>
        <option value="light" i18n="@@theme.light">Light</option>
        <option value="dark" i18n="@@theme.dark">Dark</option>
      </select>
    </label>
  `,
  styles: `
    select {
      min-height: 1.9rem;
      padding: 0.15rem 0.4rem;
      font-size: 0.8rem;
      color: #dbe3ee;
      background: rgb(255 255 255 / 6%);
      border-color: rgb(255 255 255 / 18%);
      width: auto;
    }
    option {
      color: initial;
      background: initial;
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ThemeToggle {
  protected readonly theme = inject(ThemeStore);

  protected choose(choice: ThemeChoice): void {
    this.theme.choose(choice);
  }
}
