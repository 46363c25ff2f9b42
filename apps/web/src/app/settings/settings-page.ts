import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  signal,
  untracked,
} from '@angular/core';
import { DatePipe, DecimalPipe } from '@angular/common';
import { toSignal } from '@angular/core/rxjs-interop';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import {
  sameBaseUrl,
  type ModelBackend,
  type SettingsCheckName,
  type SettingsTestResult,
  type SettingsView,
  type TestSettingsDto,
  type UpdateSettingsDto,
} from '@corpus-chat/contracts';
import { describeHttpError, httpStatus } from '../http/api-error';
import { SettingsApi } from './settings-api';

const HTTP_URL = /^https?:\/\/[^\s/$.?#][^\s]*$/i;

const MISSING_FIELDS = $localize`:@@settings.missingFields:An OpenAI-compatible server needs a base URL and a model name.`;

/** How each "Test connection" check is named on the page. */
const CHECK_LABELS: Record<SettingsCheckName, string> = {
  models: $localize`:@@settings.checkModels:Model list`,
  completion: $localize`:@@settings.checkCompletion:One-token completion`,
  tools: $localize`:@@settings.checkTools:Tool calls`,
  context: $localize`:@@settings.checkContext:Context length`,
};

/** `/settings` (admins): the model back end, a write-only API key, and "Test connection" for a server. */
@Component({
  selector: 'cc-settings-page',
  imports: [DatePipe, DecimalPipe, ReactiveFormsModule],
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
  protected readonly backend = toSignal(this.form.controls.backend.valueChanges, {
    initialValue: 'builtin' as ModelBackend,
  });
  protected readonly saved = signal<SettingsView | null>(null);
  protected readonly loading = signal(true);
  protected readonly loadError = signal<string | null>(null);
  protected readonly saving = signal(false);
  protected readonly message = signal<{ ok: boolean; text: string } | null>(null);
  protected readonly testing = signal(false);
  /** The last Test connection result, with the base URL and model it tested. */
  private readonly lastTest = signal<{ result: SettingsTestResult; baseUrl: string; model: string } | null>(
    null,
  );
  protected readonly clearKey = signal(false);
  protected readonly checkLabels = CHECK_LABELS;
  protected readonly keyStoredPlaceholder = $localize`:@@settings.keyStored:A key is stored: leave empty to keep it`;
  protected readonly keyOptionalPlaceholder = $localize`:@@settings.keyOptional:Optional (Ollama needs none)`;
  private readonly baseUrlValue = toSignal(this.form.controls.baseUrl.valueChanges, { initialValue: '' });
  private readonly modelValue = toSignal(this.form.controls.model.valueChanges, { initialValue: '' });
  private readonly apiKeyValue = toSignal(this.form.controls.apiKey.valueChanges, { initialValue: '' });
  /**
   * The stored key stays with the server it was saved for: with another base URL in the form and
   * no new key, a test sends none and saving removes it. The page says so before either happens.
   */
  protected readonly storedKeyStaysBehind = computed(() => {
    const saved = this.saved();
    const url = this.baseUrlValue().trim();
    return (
      !!saved?.apiKeySet &&
      !!saved.baseUrl &&
      !!url &&
      !this.apiKeyValue() &&
      !sameBaseUrl(url, saved.baseUrl)
    );
  });

  /**
   * The test result to show: a failure only while the form still holds the values it tested (edited
   * since, it would read as a current error about other values).
   */
  protected readonly testResult = computed(() => {
    const last = this.lastTest();
    if (!last) return null;
    const same = last.baseUrl === this.baseUrlValue().trim() && last.model === this.modelValue().trim();
    return last.result.ok || same ? last.result : null;
  });

  constructor() {
    void this.load();
    // A result belongs to the back end it tested: switching back end forgets it.
    effect(() => {
      this.backend();
      untracked(() => this.lastTest.set(null));
    });
    // A complaint about missing fields is stale once they are edited (a server's error stays until the next save).
    effect(() => {
      this.backend();
      this.baseUrlValue();
      this.modelValue();
      untracked(() => {
        if (this.message()?.text === MISSING_FIELDS) this.message.set(null);
      });
    });
  }

  protected async save(): Promise<boolean> {
    const v = this.form.getRawValue();
    if (v.backend === 'openai' && (!v.baseUrl.trim() || !v.model.trim())) {
      this.message.set({ ok: false, text: MISSING_FIELDS });
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
    const keptKey = !!this.saved()?.apiKeySet && body.apiKey === undefined;
    try {
      const view = await this.api.update(body);
      this.apply(view);
      this.forgetFailedTest();
      // The API drops the stored key when the base URL names another server: say so.
      const saved = $localize`:@@settings.saved:Saved. The next turn uses these settings.`;
      const dropped = $localize`:@@settings.keyDropped:The stored API key was removed: it belonged to the previous server.`;
      this.message.set({ ok: true, text: keptKey && !view.apiKeySet ? `${saved} ${dropped}` : saved });
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
    this.lastTest.set(null);
    const tested = { baseUrl: v.baseUrl.trim(), model: v.model.trim() };
    try {
      this.lastTest.set({ ...tested, result: await this.api.test(body) });
    } catch (err) {
      this.lastTest.set({
        ...tested,
        result: { ok: false, checks: [{ name: 'models', ok: false, detail: describeHttpError(err) }] },
      });
    } finally {
      this.testing.set(false);
    }
  }

  /** A failed test is about the form before the save: after it, it would read as a current error. */
  private forgetFailedTest(): void {
    if (this.lastTest()?.result.ok === false) this.lastTest.set(null);
  }

  protected toggleClearKey(checked: boolean): void {
    this.clearKey.set(checked);
    this.form.markAsDirty();
  }

  private async load(): Promise<void> {
    try {
      this.apply(await this.api.get());
    } catch (err) {
      this.loadError.set(
        httpStatus(err) === 403
          ? $localize`:@@settings.adminOnly:Only an admin can see and change the model settings.`
          : describeHttpError(err),
      );
    } finally {
      this.loading.set(false);
    }
  }

  private apply(view: SettingsView): void {
    this.saved.set(view);
    this.clearKey.set(false);
    this.form.reset({
      backend: view.backend,
      baseUrl: view.baseUrl ?? '',
      model: view.model ?? '',
      apiKey: '',
    });
  }
}
