import { ChangeDetectionStrategy, Component, inject, input, signal } from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { Router } from '@angular/router';
import { AuthStore } from './auth-store';

/** `/login`: username and password; back to `returnUrl` once signed in. */
@Component({
  selector: 'cc-login-page',
  imports: [ReactiveFormsModule],
  templateUrl: './login-page.html',
  styleUrl: './login-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class LoginPage {
  private readonly auth = inject(AuthStore);
  private readonly router = inject(Router);

  /** Query parameter: where to go after signing in. */
  readonly returnUrl = input<string>();

  protected readonly form = inject(NonNullableFormBuilder).group({
    username: ['', [Validators.required, Validators.maxLength(100)]],
    password: ['', [Validators.required, Validators.maxLength(200)]],
  });
  protected readonly busy = signal(false);
  protected readonly error = signal<string | null>(null);
  protected readonly notice = (() => {
    const s = this.auth.session();
    return s.status === 'signed-out' ? (s.reason ?? null) : null;
  })();

  protected async signIn(): Promise<void> {
    if (this.form.invalid || this.busy()) {
      this.form.markAllAsTouched();
      return;
    }
    this.busy.set(true);
    this.error.set(null);
    const { username, password } = this.form.getRawValue();
    const failure = await this.auth.signIn(username.trim(), password);
    this.busy.set(false);
    if (failure) {
      this.error.set(failure);
      this.form.controls.password.reset();
      return;
    }
    const target = this.returnUrl();
    await this.router.navigateByUrl(
      target && target.startsWith('/') && !target.startsWith('//') ? target : '/chat',
    );
  }
}
