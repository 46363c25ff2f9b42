import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { RouterLink } from '@angular/router';
import { roleLabel } from '../i18n/labels';
import { ApiTokensPanel } from './api-tokens-panel';
import { AuthStore } from './auth-store';
import { ChangePasswordForm } from './change-password-form';
import { NotificationsPreference } from '../chat/notifications-preference';
import { WebhooksPanel } from '../settings/webhooks-panel';
import { SessionsPanel } from './sessions-panel';

/**
 * `/account`: who is signed in, "Change my password", the operator's sessions, API tokens, notices and
 * webhooks. Every operator.
 */
@Component({
  selector: 'cc-account-page',
  imports: [
    ChangePasswordForm,
    SessionsPanel,
    ApiTokensPanel,
    NotificationsPreference,
    WebhooksPanel,
    RouterLink,
  ],
  template: `
    <div class="page narrow">
      <header class="page-header">
        <div>
          <h1 i18n="@@account.heading">My account</h1>
          @if (auth.operator(); as me) {
            <p>
              <ng-container i18n="@@account.signedInAs"
                >Signed in as <strong>{{ me.displayName || me.username }}</strong> ({{ me.username }}),
                {{ roleLabel(me.role) }}.</ng-container
              >
              @if (auth.isAdmin()) {
                &ngsp;<ng-container i18n="@@account.othersUnder"
                  >Other operators are managed under <a routerLink="/operators">Operators</a>.</ng-container
                >
              }
            </p>
          }
        </div>
      </header>
      <section class="panel body">
        <cc-change-password-form />
      </section>
      <section class="panel body">
        <cc-sessions-panel />
      </section>
      <section class="panel body">
        <cc-api-tokens-panel />
      </section>
      <section class="panel body">
        <cc-notifications-preference />
        <cc-webhooks-panel />
      </section>
    </div>
  `,
  styles: `
    .narrow {
      max-width: 46rem;
    }
    .body {
      padding: 1.25rem 1.4rem;
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class AccountPage {
  protected readonly auth = inject(AuthStore);
  protected readonly roleLabel = roleLabel;
}
