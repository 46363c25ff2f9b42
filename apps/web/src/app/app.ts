import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { RouterOutlet } from '@angular/router';
import { ThemeStore } from './theme/theme-store';

/** Root component: the router decides between the login page and the signed-in shell; the theme applies to both. */
@Component({
  selector: 'cc-root',
  imports: [RouterOutlet],
  template: '<router-outlet />',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class App {
  constructor() {
    inject(ThemeStore);
  }
}
