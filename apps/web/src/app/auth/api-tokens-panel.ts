import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, type OnInit, inject, signal } from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import type { CreatedApiToken } from '@corpus-chat/contracts';
import { SecretOnce } from '../shared/secret-once';
import { ApiTokensStore } from './api-tokens-store';

/** Lifetimes offered for a new token, in days (the API's default, 90, first). */
const LIFETIMES = [90, 30, 7, 365];

/**
 * "API tokens" on My account: create a read-only token for scripts and MCP clients with the
 * operator's password (its secret is shown once, to copy), list the operator's tokens with when
 * each was last used, revoke one.
 */
@Component({
  selector: 'cc-api-tokens-panel',
  imports: [ReactiveFormsModule, DatePipe, SecretOnce],
  template: `
    <h2 id="api-tokens-heading" i18n="@@tokens.heading">API tokens</h2>
    <p class="muted hint" i18n="@@tokens.hint">
      Read-only access for scripts and MCP clients (IDE assistants, desktop chat apps): corpus and your own
      threads, never admin pages or changes. Send it as <code>Authorization: Bearer …</code>; the MCP server
      is at <code>/mcp</code>.
    </p>
    <form
      [formGroup]="form"
      (ngSubmit)="createToken()"
      aria-labelledby="api-tokens-heading"
      novalidate
      class="row"
    >
      <div class="field">
        <label for="tok-name" i18n="@@tokens.name">Name</label>
        <input
          id="tok-name"
          formControlName="name"
          maxlength="100"
          placeholder="VS Code on my laptop"
          i18n-placeholder="@@tokens.namePlaceholder"
          required
        />
      </div>
      <div class="field">
        <label for="tok-life" i18n="@@tokens.expiresAfter">Expires after</label>
        <select id="tok-life" formControlName="days">
          @for (days of lifetimes; track days) {
            <option [ngValue]="days">
              @switch (days) {
                @case (365) {
                  <ng-container i18n="@@tokens.oneYear">1 year</ng-container>
                }
                @default {
                  <ng-container i18n="@@tokens.days">{days, plural,
                    one {{{ days }} day}
                    other {{{ days }} days}
                  }</ng-container>
                }
              }
            </option>
          }
        </select>
      </div>
      <div class="field">
        <label for="tok-password" i18n="@@tokens.password">Your password</label>
        <input
          id="tok-password"
          type="password"
          formControlName="password"
          autocomplete="current-password"
          required
        />
      </div>
      <button type="submit" class="primary" [disabled]="busy()" i18n="@@tokens.create">Create token</button>
    </form>
    @if (created(); as c) {
      <cc-secret-once data-testid="api-token-secret" [secret]="c.secret" [label]="newTokenLabel">
        <ng-container i18n="@@tokens.copyNow"
          ><strong>Copy this token now:</strong> it is shown only once.</ng-container
        >
      </cc-secret-once>
    }
    @if (message(); as m) {
      <p class="error" role="alert">{{ m }}</p>
    }
    @if (store.loadError(); as e) {
      <p class="error" role="alert">{{ e }}</p>
    }
    @if (store.tokens().length) {
      <table>
        <thead>
          <tr>
            <th i18n="@@tokens.name">Name</th>
            <th i18n="@@tokens.token">Token</th>
            <th i18n="@@tokens.created">Created</th>
            <th i18n="@@tokens.expires">Expires</th>
            <th i18n="@@tokens.lastUsed">Last used</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          @for (t of store.tokens(); track t.id) {
            <tr>
              <td>{{ t.name }}</td>
              <td>
                <code>{{ t.prefix }}…</code>
              </td>
              <td>{{ t.createdAt | date: 'mediumDate' }}</td>
              <td>
                @if (t.expiresAt) {
                  {{ t.expiresAt | date: 'mediumDate' }}
                } @else {
                  <ng-container i18n="@@tokens.neverLower">never</ng-container>
                }
              </td>
              <td>
                @if (t.lastUsedAt) {
                  {{ t.lastUsedAt | date: 'medium' }}
                } @else {
                  <ng-container i18n="@@tokens.notUsed">not yet</ng-container>
                }
              </td>
              <td>
                <button
                  type="button"
                  (click)="revokeToken(t.id)"
                  [attr.aria-label]="revokeLabel(t.name)"
                  i18n="@@tokens.revoke"
                >
                  Revoke
                </button>
              </td>
            </tr>
          }
        </tbody>
      </table>
    } @else if (!store.loadError()) {
      <p class="muted" i18n="@@tokens.none">You have no API tokens.</p>
    }
  `,
  styleUrl: '../shared/account-panel.css',
  styles: `
    .row {
      display: grid;
      grid-template-columns: 2fr 1fr 1fr auto;
      gap: 0.75rem;
      align-items: end;
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ApiTokensPanel implements OnInit {
  protected readonly store = inject(ApiTokensStore);
  protected readonly lifetimes = LIFETIMES;
  protected readonly form = inject(NonNullableFormBuilder).group({
    name: ['', [Validators.required, Validators.maxLength(100), Validators.pattern(/\S/)]],
    days: [90],
    password: ['', [Validators.required]],
  });
  protected readonly busy = signal(false);
  protected readonly created = signal<CreatedApiToken | null>(null);
  protected readonly newTokenLabel = $localize`:@@tokens.newToken:New API token`;
  protected readonly message = signal<string | null>(null);

  ngOnInit(): void {
    void this.store.load();
  }

  protected async createToken(): Promise<void> {
    if (this.busy()) return;
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      this.message.set(
        this.form.controls.name.invalid
          ? $localize`:@@tokens.nameNeeded:Give the token a name that says where it is used.`
          : $localize`:@@tokens.passwordNeeded:Enter your password to create a token.`,
      );
      return;
    }
    this.busy.set(true);
    this.message.set(null);
    const { name, days, password } = this.form.getRawValue();
    const result = await this.store.create({ name, expiresInDays: days, password });
    this.busy.set(false);
    if (!result.ok) {
      this.message.set(result.message);
      return;
    }
    this.created.set(result.token);
    this.form.reset();
  }

  protected revokeLabel(name: string): string {
    return $localize`:@@tokens.revokeNamed:Revoke ${name}:name:`;
  }

  protected async revokeToken(id: string): Promise<void> {
    this.message.set(await this.store.revoke(id));
    if (this.created()?.id === id) this.created.set(null);
  }
}
