import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type {
  SettingsTestResult,
  SettingsView,
  TestSettingsDto,
  UpdateSettingsDto,
} from '@corpus-chat/contracts';

/** `/api/settings` (admin only): the model back end used by the next turn. */
@Injectable({ providedIn: 'root' })
export class SettingsApi {
  private readonly http = inject(HttpClient);

  get(): Promise<SettingsView> {
    return firstValueFrom(this.http.get<SettingsView>('/api/settings'));
  }

  /** An omitted `apiKey` keeps the stored key; an empty string clears it. */
  update(body: UpdateSettingsDto): Promise<SettingsView> {
    return firstValueFrom(this.http.put<SettingsView>('/api/settings', body));
  }

  /**
   * Asks a model server for its models and a one-token completion: the values given (not yet
   * saved), the stored ones for fields left out (an omitted `apiKey` uses the stored key).
   */
  test(body: TestSettingsDto = {}): Promise<SettingsTestResult> {
    return firstValueFrom(this.http.post<SettingsTestResult>('/api/settings/test', body));
  }
}
