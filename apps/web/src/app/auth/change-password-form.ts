import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators, type ValidatorFn } from '@angular/forms';
import { OPERATOR_PASSWORD_MIN_LENGTH } from '@corpus-chat/contracts';
import { ChatSocket } from '../chat/chat-socket';
import { AuthStore } from './auth-store';

/** The repeated new password must equal the new password. */
const sameAsNew: ValidatorFn = (group) => {
  const { newPassword, repeat } = group.value as { newPassword?: string; repeat?: string };
  return repeat && newPassword !== repeat ? { mismatch: true } : null;
};

/**
 * "Change my password" for the signed-in operator (`POST /api/auth/password`): current password,
 * new password twice. On success the API ends the operator's other sessions (their sockets too)
 * and renews this session's cookie, so the live connection reconnects with it.
 */
@Component({
  selector: 'cc-change-password-form',
  imports: [ReactiveFormsModule],
  template: `
    <form
      [formGroup]="form"
      (ngSubmit)="changePassword()"
      aria-labelledby="change-password-heading"
      novalidate
    >
      <h2 id="change-password-heading" i18n="@@password.heading">Change my password</h2>
      <p class="muted hint" i18n="@@password.hint">Your other sessions end; this one stays signed in.</p>
      <div class="row">
        <div class="field">
          <label for="cp-current" i18n="@@password.current">Current password</label>
          <input
            id="cp-current"
            type="password"
            formControlName="currentPassword"
            autocomplete="current-password"
            required
          />
        </div>
        <div class="field">
          <label for="cp-new" i18n="@@password.new">New password</label>
          <input
            id="cp-new"
            type="password"
            formControlName="newPassword"
            autocomplete="new-password"
            required
            aria-describedby="cp-new-hint"
          />
        </div>
        <div class="field">
          <label for="cp-repeat" i18n="@@password.repeat">Repeat new password</label>
          <input
            id="cp-repeat"
            type="password"
            formControlName="repeat"
            autocomplete="new-password"
            required
          />
        </div>
      </div>
      <p
        id="cp-new-hint"
        class="hint"
        [class.bad]="form.controls.newPassword.invalid && form.controls.newPassword.touched"
        i18n="@@password.minLength"
      >
        At least {{ minLength }} characters.
      </p>
      @if (form.hasError('mismatch') && form.controls.repeat.touched) {
        <p class="error" role="alert" i18n="@@password.mismatch">The two new passwords differ.</p>
      }
      @if (message(); as m) {
        <p
          [class]="m.ok ? 'saved' : 'error'"
          [attr.role]="m.ok ? 'status' : 'alert'"
          data-testid="change-password-message"
        >
          {{ m.text }}
        </p>
      }
      <div>
        <button type="submit" class="primary" [disabled]="busy()">
          @if (busy()) {
            <span class="spinner" aria-hidden="true"></span>
          }
          <ng-container i18n="@@password.submit">Change password</ng-container>
        </button>
      </div>
    </form>
  `,
  styleUrl: '../shared/account-panel.css',
  styles: `
    form {
      display: flex;
      flex-direction: column;
      gap: 0.6rem;
    }
    .row {
      display: grid;
      grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
      gap: 0.75rem;
    }
    .saved {
      margin: 0;
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ChangePasswordForm {
  private readonly auth = inject(AuthStore);
  private readonly socket = inject(ChatSocket);

  protected readonly minLength = OPERATOR_PASSWORD_MIN_LENGTH;
  protected readonly form = inject(NonNullableFormBuilder).group(
    {
      currentPassword: ['', [Validators.required, Validators.maxLength(200)]],
      newPassword: [
        '',
        [Validators.required, Validators.minLength(OPERATOR_PASSWORD_MIN_LENGTH), Validators.maxLength(200)],
      ],
      repeat: ['', [Validators.required]],
    },
    { validators: [sameAsNew] },
  );
  protected readonly busy = signal(false);
  protected readonly message = signal<{ ok: boolean; text: string } | null>(null);

  protected async changePassword(): Promise<void> {
    if (this.busy()) return;
    if (this.form.invalid) {
      // The last answer is about an earlier attempt: only the form's own errors apply now.
      this.message.set(null);
      this.form.markAllAsTouched();
      return;
    }
    this.busy.set(true);
    this.message.set(null);
    const { currentPassword, newPassword } = this.form.getRawValue();
    const failure = await this.auth.changePassword(currentPassword, newPassword);
    this.busy.set(false);
    if (failure) {
      this.message.set({ ok: false, text: failure });
      this.form.controls.currentPassword.reset();
      return;
    }
    this.form.reset();
    this.message.set({
      ok: true,
      text: $localize`:@@password.changed:Password changed. Your other sessions have ended.`,
    });
    // The API closed every socket of this operator: open a new one with the renewed cookie.
    this.socket.disconnect();
    this.socket.connect();
  }
}
