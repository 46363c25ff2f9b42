import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { RouterLink } from '@angular/router';
import { ApiTokensPanel } from './api-tokens-panel';
import { AuthStore } from './auth-store';
import { ChangePasswordForm } from './change-password-form';

/** `/account`: who is signed in, "Change my password" and the operator's API tokens. Every operator. */
@Component({
  selector: 'cc-account-page',
  imports: [ChangePasswordForm, ApiTokensPanel, RouterLink],
  template: `
    <div class="page narrow">
      <header class="page-header">
        <div>
          <h1>My account</h1>
          @if (auth.operator(); as me) {
            <p>
              Signed in as <strong>{{ me.displayName || me.username }}</strong> ({{ me.username }}), {{ me.role }}.
              @if (auth.isAdmin()) {
                Other operators are managed under <a routerLink="/operators">Operators</a>.
              }
            </p>
          }
        </div>
      </header>
      <section class="panel body">
        <cc-change-password-form />
      </section>
      <section class="panel body">
        <cc-api-tokens-panel />
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
}
