import { HttpClient } from '@angular/common/http';
import { Injectable, inject, signal } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type { ApiTokenView, CreateApiTokenDto, CreatedApiToken } from '@corpus-chat/contracts';
import { describeHttpError, failureOf } from '../http/api-error';

/**
 * The signed-in operator's API tokens (`/api/auth/tokens`), newest first. The secret of a new
 * token lives only in what `create` returns: the API never answers it again.
 */
@Injectable({ providedIn: 'root' })
export class ApiTokensStore {
  private readonly http = inject(HttpClient);
  private readonly list = signal<ApiTokenView[]>([]);
  private readonly failure = signal<string | null>(null);

  readonly tokens = this.list.asReadonly();
  /** Why the list could not be loaded, or null. */
  readonly loadError = this.failure.asReadonly();

  async load(): Promise<void> {
    this.failure.set(
      await failureOf(async () =>
        this.list.set(await firstValueFrom(this.http.get<ApiTokenView[]>('/api/auth/tokens'))),
      ),
    );
  }

  /** Creates a token; the answer holds its secret, or a message saying why it was refused. */
  async create(
    body: CreateApiTokenDto,
  ): Promise<{ ok: true; token: CreatedApiToken } | { ok: false; message: string }> {
    try {
      const token = await firstValueFrom(this.http.post<CreatedApiToken>('/api/auth/tokens', body));
      const { secret: _secret, ...view } = token;
      this.list.update((all) => [view, ...all]);
      return { ok: true, token };
    } catch (err) {
      return { ok: false, message: describeHttpError(err) };
    }
  }

  /** Revokes token `id`; null on success, else a message. */
  revoke(id: string): Promise<string | null> {
    return failureOf(async () => {
      await firstValueFrom(this.http.delete<void>(`/api/auth/tokens/${encodeURIComponent(id)}`));
      this.list.update((all) => all.filter((t) => t.id !== id));
    });
  }
}
