import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { NoticesStore } from './notices-store';

/**
 * "Browser notifications" on My account: off until turned on, and the browser is asked for its
 * permission only then; a refused permission leaves it off and says so.
 */
@Component({
  selector: 'cc-notifications-preference',
  template: `
    <h2 i18n="@@notify.heading">Notices</h2>
    <p class="muted" i18n="@@notify.explain">
      When a turn of yours ends in a thread you are not looking at, a notice shows here in the page. Browser
      notifications also tell you while this tab is hidden.
    </p>
    <label>
      <input
        type="checkbox"
        data-testid="notifications-toggle"
        [checked]="store.notifications()"
        [disabled]="asking()"
        (change)="toggle($any($event.target).checked)"
      />
      <ng-container i18n="@@notify.toggle">Browser notifications</ng-container>
    </label>
    @if (refused()) {
      <p class="error" role="alert" i18n="@@notify.refused">
        The browser did not allow notifications for this site. Allow them in its site settings, then turn them
        on again.
      </p>
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class NotificationsPreference {
  protected readonly store = inject(NoticesStore);
  protected readonly asking = signal(false);
  protected readonly refused = signal(false);

  protected async toggle(on: boolean): Promise<void> {
    this.asking.set(true);
    try {
      const allowed = await this.store.setNotifications(on);
      this.refused.set(on && !allowed);
    } finally {
      this.asking.set(false);
    }
  }
}
