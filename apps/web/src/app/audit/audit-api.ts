import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type { AuditPage, AuditQueryDto } from '@corpus-chat/contracts';

/** `GET /api/audit` (admin only): who changed what, newest first. */
@Injectable({ providedIn: 'root' })
export class AuditApi {
  private readonly http = inject(HttpClient);

  /** One page of events matching `query` (empty fields left out); page on with `cursor: nextCursor`. */
  list(query: AuditQueryDto): Promise<AuditPage> {
    const params = Object.fromEntries(
      Object.entries(query)
        .filter(([, v]) => v !== undefined && v !== '')
        .map(([k, v]) => [k, String(v)]),
    );
    return firstValueFrom(this.http.get<AuditPage>('/api/audit', { params }));
  }
}
