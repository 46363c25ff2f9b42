import { ChangeDetectionStrategy, Component, effect, inject, signal, untracked } from '@angular/core';
import { DatePipe } from '@angular/common';
import { toSignal } from '@angular/core/rxjs-interop';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import type { ModelBackend, SettingsTestResult, SettingsView, TestSettingsDto, UpdateSettingsDto } from '@corpus-chat/contracts';
import { describeHttpError, httpStatus } from '../http/api-error';
import { SettingsApi } from './settings-api';

const HTTP_URL = /^https?:\/\/[^\s/$.?#][^\s]*$/i;

/**
 * `/settings` (admins): the model back end (built-in planner or an OpenAI-compatible server), the
 * API key (write-only: never shown back), and "Test connection" for a server (the built-in planner
 * has nothing to connect to, so it offers none).
 */
@Component({
  selector: 'cc-settings-page',
  imports: [DatePipe, ReactiveFormsModule],
  templateUrl: './settings-page.html',
  styleUrl: './settings-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class SettingsPage {
  private readonly api = inject(SettingsApi);

  protected readonly form = inject(NonNullableFormBuilder).group({
    backend: ['builtin' as ModelBackend],
    baseUrl: ['', [Validators.pattern(HTTP_URL)]],
    model: ['', [Validators.maxLength(200)]],
    apiKey: ['', [Validators.maxLength(500)]],
  });
  protected readonly backend = toSignal(this.form.controls.backend.valueChanges, { initialValue: 'builtin' as ModelBackend });
  protected readonly saved = signal<SettingsView | null>(null);
  protected readonly loading = signal(true);
  protected readonly loadError = signal<string | null>(null);
  protected readonly saving = signal(false);
  protected readonly message = signal<{ ok: boolean; text: string } | null>(null);
  protected readonly testing = signal(false);
  protected readonly testResult = signal<SettingsTestResult | null>(null);
  protected readonly clearKey = signal(false);

  constructor() {
    void this.load();
    // A result belongs to the back end it tested: switching back end forgets it.
    effect(() => {
      this.backend();
      untracked(() => this.testResult.set(null));
    });
  }

  protected async save(): Promise<boolean> {
    const v = this.form.getRawValue();
    if (v.backend === 'openai' && (!v.baseUrl.trim() || !v.model.trim())) {
      this.message.set({ ok: false, text: 'An OpenAI-compatible server needs a base URL and a model name.' });
      return false;
    }
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return false;
    }
    const body: UpdateSettingsDto = { backend: v.backend };
    if (v.backend === 'openai') {
      body.baseUrl = v.baseUrl.trim();
      body.model = v.model.trim();
    }
    if (v.apiKey) body.apiKey = v.apiKey;
    else if (this.clearKey()) body.apiKey = '';
    this.saving.set(true);
    this.message.set(null);
    try {
      this.apply(await this.api.update(body));
      this.message.set({ ok: true, text: 'Saved. The next turn uses these settings.' });
      return true;
    } catch (err) {
      this.message.set({ ok: false, text: describeHttpError(err) });
      return false;
    } finally {
      this.saving.set(false);
    }
  }

  /** Tests the values in the form, saved or not (the stored key is used unless a new one is typed). */
  protected async testConnection(): Promise<void> {
    const v = this.form.getRawValue();
    const body: TestSettingsDto = { backend: v.backend };
    if (v.backend === 'openai') {
      if (v.baseUrl.trim()) body.baseUrl = v.baseUrl.trim();
      if (v.model.trim()) body.model = v.model.trim();
      if (v.apiKey) body.apiKey = v.apiKey;
    }
    this.testing.set(true);
    this.testResult.set(null);
    try {
      this.testResult.set(await this.api.test(body));
    } catch (err) {
      this.testResult.set({ ok: false, checks: [{ name: 'models', ok: false, detail: describeHttpError(err) }] });
    } finally {
      this.testing.set(false);
    }
  }

  protected toggleClearKey(checked: boolean): void {
    this.clearKey.set(checked);
    this.form.markAsDirty();
  }

  private async load(): Promise<void> {
    try {
      this.apply(await this.api.get());
    } catch (err) {
      this.loadError.set(httpStatus(err) === 403 ? 'Only an admin can see and change the model settings.' : describeHttpError(err));
    } finally {
      this.loading.set(false);
    }
  }

  private apply(view: SettingsView): void {
    this.saved.set(view);
    this.clearKey.set(false);
    this.form.reset({ backend: view.backend, baseUrl: view.baseUrl ?? '', model: view.model ?? '', apiKey: '' });
  }
}
