import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type { FeedbackPage, FeedbackQueryDto } from '@corpus-chat/contracts';

/** `GET /api/feedback` (admin only): every operator's ratings of answers, most recent first. */
@Injectable({ providedIn: 'root' })
export class FeedbackApi {
  private readonly http = inject(HttpClient);

  /** One page of feedback matching `query` (set fields only). */
  list(query: FeedbackQueryDto): Promise<FeedbackPage> {
    return firstValueFrom(this.http.get<FeedbackPage>('/api/feedback', { params: { ...query } }));
  }
}
