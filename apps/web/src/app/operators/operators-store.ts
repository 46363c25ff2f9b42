import { Injectable, computed, inject, signal } from '@angular/core';
import type {
  CreateOperatorDto,
  OperatorRole,
  OperatorView,
  UpdateOperatorDto,
} from '@corpus-chat/contracts';
import { describeHttpError, failureOf } from '../http/api-error';
import { OperatorsApi } from './operators-api';

interface OperatorsState {
  operators: OperatorView[];
  loading: boolean;
  loadError: string | null;
  /** Operators with a change in flight. */
  busyIds: string[];
  /** The outcome of the last change, shown above the list. */
  notice: { ok: boolean; text: string } | null;
}

/** The operator accounts an admin manages: list, create, disable / enable, change role, reset password. */
@Injectable()
export class OperatorsStore {
  private readonly api = inject(OperatorsApi);
  private readonly state = signal<OperatorsState>({
    operators: [],
    loading: false,
    loadError: null,
    busyIds: [],
    notice: null,
  });

  readonly operators = computed(() => this.state().operators);
  readonly loading = computed(() => this.state().loading);
  readonly loadError = computed(() => this.state().loadError);
  readonly notice = computed(() => this.state().notice);

  isBusy(id: string): boolean {
    return this.state().busyIds.includes(id);
  }

  async load(): Promise<void> {
    this.state.update((s) => ({ ...s, loading: true, loadError: null }));
    try {
      const operators = await this.api.list();
      this.state.update((s) => ({ ...s, operators, loading: false }));
    } catch (err) {
      this.state.update((s) => ({ ...s, loading: false, loadError: describeHttpError(err) }));
    }
  }

  /** Creates an operator: `null` on success, else the API's message. */
  create(body: CreateOperatorDto): Promise<string | null> {
    return failureOf(async () => {
      const created = await this.api.create(body);
      this.state.update((s) => ({
        ...s,
        operators: [...s.operators, created],
        notice: {
          ok: true,
          text: $localize`:@@operators.addedNotice:Added ${created.username}:username:. Give them the password; they can change it under My account.`,
        },
      }));
    });
  }

  setDisabled(operator: OperatorView, disabled: boolean): Promise<boolean> {
    return this.update(
      operator,
      { disabled },
      disabled
        ? $localize`:@@operators.disabledNotice:Disabled ${operator.username}:username:: their sessions have ended.`
        : $localize`:@@operators.enabledNotice:Enabled ${operator.username}:username:: they can sign in again.`,
    );
  }

  setRole(operator: OperatorView, role: OperatorRole): Promise<boolean> {
    return this.update(
      operator,
      { role },
      role === 'admin'
        ? $localize`:@@operators.nowAdmin:${operator.username}:username: is now an admin.`
        : $localize`:@@operators.nowOperator:${operator.username}:username: is now an operator.`,
    );
  }

  resetPassword(operator: OperatorView, password: string): Promise<boolean> {
    return this.update(
      operator,
      { password },
      $localize`:@@operators.passwordSetNotice:New password set for ${operator.username}:username:: their sessions have ended.`,
    );
  }

  /** One PATCH; on success the row is replaced and `done` shown, on failure the API's reason. */
  private async update(operator: OperatorView, body: UpdateOperatorDto, done: string): Promise<boolean> {
    if (this.isBusy(operator.id)) return false;
    this.state.update((s) => ({ ...s, busyIds: [...s.busyIds, operator.id], notice: null }));
    try {
      const saved = await this.api.update(operator.id, body);
      this.state.update((s) => ({
        ...s,
        operators: s.operators.map((o) => (o.id === saved.id ? saved : o)),
        notice: { ok: true, text: done },
      }));
      return true;
    } catch (err) {
      this.state.update((s) => ({
        ...s,
        notice: { ok: false, text: `${operator.username}: ${describeHttpError(err)}` },
      }));
      return false;
    } finally {
      this.state.update((s) => ({ ...s, busyIds: s.busyIds.filter((id) => id !== operator.id) }));
    }
  }
}
