import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { ThemeStore, type ThemeChoice } from './theme-store';

/** The theme picker of the navigation: follow the system, or always light or dark (stored). */
@Component({
  selector: 'cc-theme-toggle',
  template: `
    <label class="theme nav-picker">
      <span class="sr-only" i18n="@@theme.label">Theme</span>
      <select
        [value]="theme.choice()"
        (change)="choose($any($event.target).value)"
        data-testid="theme"
        title="Theme"
        i18n-title="@@theme.label"
      >
        <option value="system" i18n="@@theme.system">System theme</option>
        <option value="light" i18n="@@theme.light">Light</option>
        <option value="dark" i18n="@@theme.dark">Dark</option>
      </select>
    </label>
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ThemeToggle {
  protected readonly theme = inject(ThemeStore);

  protected choose(choice: ThemeChoice): void {
    this.theme.choose(choice);
  }
}
