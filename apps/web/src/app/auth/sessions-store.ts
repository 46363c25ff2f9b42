import { HttpClient } from '@angular/common/http';
import { Injectable, inject, signal } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type { SessionView } from '@corpus-chat/contracts';
import { failureOf } from '../http/api-error';

/** The signed-in operator's sessions (`/api/auth/sessions`), most recently seen first. */
@Injectable({ providedIn: 'root' })
export class SessionsStore {
  private readonly http = inject(HttpClient);
  private readonly list = signal<SessionView[]>([]);
  private readonly failure = signal<string | null>(null);

  readonly sessions = this.list.asReadonly();
  /** Why the list could not be loaded, or null. */
  readonly loadError = this.failure.asReadonly();

  async load(): Promise<void> {
    this.failure.set(
      await failureOf(async () =>
        this.list.set(await firstValueFrom(this.http.get<SessionView[]>('/api/auth/sessions'))),
      ),
    );
  }

  /** Ends session `id` (its browser is signed out, its sockets drop); null on success, else a message. */
  end(id: string): Promise<string | null> {
    return failureOf(async () => {
      await firstValueFrom(this.http.delete<void>(`/api/auth/sessions/${encodeURIComponent(id)}`));
      this.list.update((all) => all.filter((s) => s.id !== id));
    });
  }
}
