import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type { FeedbackPage, FeedbackQueryDto } from '@corpus-chat/contracts';

/** `GET /api/feedback` (admin only): every operator's ratings of answers, most recent first. */
@Injectable({ providedIn: 'root' })
export class FeedbackApi {
  private readonly http = inject(HttpClient);

  /** One page of feedback matching `query` (empty fields left out). */
  list(query: FeedbackQueryDto): Promise<FeedbackPage> {
    const params = Object.fromEntries(
      Object.entries(query)
        .filter(([, v]) => v !== undefined && v !== '')
        .map(([k, v]) => [k, String(v)]),
    );
    return firstValueFrom(this.http.get<FeedbackPage>('/api/feedback', { params }));
  }
}
