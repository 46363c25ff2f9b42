import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { DatePipe, DecimalPipe } from '@angular/common';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { RouterLink } from '@angular/router';
import {
  OPERATOR_PASSWORD_MIN_LENGTH,
  OPERATOR_ROLES,
  OPERATOR_USERNAME_PATTERN,
  type OperatorRole,
  type OperatorView,
} from '@corpus-chat/contracts';
import { AuthStore } from '../auth/auth-store';
import { roleLabel } from '../i18n/labels';
import { OperatorsStore } from './operators-store';

/**
 * `/operators` (admins): every operator account; add one, disable / enable, change the role, set a
 * new password; the admin's own row links to "Change my password" on the account page.
 */
@Component({
  selector: 'cc-operators-page',
  imports: [DatePipe, DecimalPipe, ReactiveFormsModule, RouterLink],
  providers: [OperatorsStore],
  templateUrl: './operators-page.html',
  styleUrl: './operators-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class OperatorsPage {
  protected readonly store = inject(OperatorsStore);
  private readonly auth = inject(AuthStore);
  private readonly fb = inject(NonNullableFormBuilder);

  protected readonly roles = OPERATOR_ROLES;
  protected readonly minLength = OPERATOR_PASSWORD_MIN_LENGTH;
  protected readonly myId = computed(() => this.auth.operator()?.id ?? null);
  protected readonly roleLabel = roleLabel;
  protected readonly cannotDemote = $localize`:@@operators.cannotDemote:You cannot demote yourself`;

  protected readonly createForm = this.fb.group({
    username: ['', [Validators.required, Validators.pattern(OPERATOR_USERNAME_PATTERN)]],
    displayName: ['', [Validators.required, Validators.maxLength(100)]],
    role: ['operator' as OperatorRole],
    password: [
      '',
      [Validators.required, Validators.minLength(OPERATOR_PASSWORD_MIN_LENGTH), Validators.maxLength(200)],
    ],
  });
  protected readonly creating = signal(false);
  protected readonly createError = signal<string | null>(null);

  /** The operator whose new password is being typed, if any. */
  protected readonly resetting = signal<string | null>(null);
  protected readonly resetForm = this.fb.group({
    password: [
      '',
      [Validators.required, Validators.minLength(OPERATOR_PASSWORD_MIN_LENGTH), Validators.maxLength(200)],
    ],
  });

  constructor() {
    void this.store.load();
  }

  protected roleOf(username: string): string {
    return $localize`:@@operators.roleOf:Role of ${username}:username:`;
  }

  protected resetLabel(username: string): string {
    return $localize`:@@operators.resetOf:Reset the password of ${username}:username:`;
  }

  protected toggleLabel(o: OperatorView): string {
    return o.disabled
      ? $localize`:@@operators.enableNamed:Enable ${o.username}:username:`
      : $localize`:@@operators.disableNamed:Disable ${o.username}:username:`;
  }

  protected async createOperator(): Promise<void> {
    if (this.creating()) return;
    if (this.createForm.invalid) {
      this.createForm.markAllAsTouched();
      return;
    }
    const v = this.createForm.getRawValue();
    this.creating.set(true);
    this.createError.set(null);
    const failure = await this.store.create({
      username: v.username.trim(),
      displayName: v.displayName.trim(),
      role: v.role,
      password: v.password,
    });
    this.creating.set(false);
    if (failure) {
      this.createError.set(failure);
      return;
    }
    this.createForm.reset();
  }

  protected toggleDisabled(operator: OperatorView): void {
    void this.store.setDisabled(operator, !operator.disabled);
  }

  /** Changes the role from the row's select; puts the select back when the API refuses. */
  protected async changeRole(operator: OperatorView, select: HTMLSelectElement): Promise<void> {
    const role = select.value as OperatorRole;
    if (role === operator.role) return;
    if (!(await this.store.setRole(operator, role))) select.value = operator.role;
  }

  protected startReset(operator: OperatorView): void {
    this.resetForm.reset();
    this.resetting.set(operator.id);
  }

  protected cancelReset(): void {
    this.resetting.set(null);
  }

  protected async saveReset(operator: OperatorView): Promise<void> {
    if (this.resetForm.invalid) {
      this.resetForm.markAllAsTouched();
      return;
    }
    if (await this.store.resetPassword(operator, this.resetForm.getRawValue().password))
      this.resetting.set(null);
  }
}
