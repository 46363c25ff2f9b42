import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { ActivatedRoute } from '@angular/router';

/** Names of the admin-only pages, for the notice shown to an operator sent back from one. */
const ADMIN_PAGES: Record<string, string> = {
  settings: $localize`:@@nav.settings:Settings`,
  operators: $localize`:@@nav.operators:Operators`,
  audit: $localize`:@@nav.audit:Audit log`,
};

/**
 * `/chat` with no thread selected. With `?denied=<page>` (set by `adminGuard` when an operator
 * who is not an administrator opened an admin-only page), it first says why they landed here.
 */
@Component({
  selector: 'cc-chat-empty',
  template: `
    <div class="empty">
      @if (denied(); as page) {
        <p class="notice" role="status" i18n="@@chat.adminOnly">
          {{ page }} is open to administrators only. Ask an administrator if something there needs to change.
        </p>
      }
      <div class="logo" aria-hidden="true"></div>
      <h1 i18n="@@chat.emptyHeading">Chat with your findings</h1>
      <p i18n="@@chat.emptyText">
        Pick a thread on the left or start a new one. Answers quote exact totals from read-only queries, with
        a link to check each number.
      </p>
    </div>
  `,
  styles: `
    :host {
      display: grid;
      place-items: center;
      height: 100%;
      background: var(--surface);
    }
    .empty {
      max-width: 26rem;
      text-align: center;
      padding: 2rem;
    }
    .logo {
      display: block;
      font-size: 1.875rem;
      margin: 0 auto 1rem;
    }
    h1 {
      font-size: 1.2rem;
      margin: 0 0 0.4rem;
    }
    p {
      color: var(--muted);
      margin: 0;
    }
    p.notice {
      color: var(--warn);
      margin: 0 0 1.5rem;
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ChatEmpty {
  private readonly query = toSignal(inject(ActivatedRoute).queryParamMap);
  /** The admin-only page the operator was sent back from, by name, or null. */
  protected readonly denied = computed(() => ADMIN_PAGES[this.query()?.get('denied') ?? ''] ?? null);
}
