import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type { AuditPage, AuditQueryDto } from '@corpus-chat/contracts';

/** `GET /api/audit` (admin only): who changed what, newest first. */
@Injectable({ providedIn: 'root' })
export class AuditApi {
  private readonly http = inject(HttpClient);

  /** One page of events matching `query` (set fields only); page on with `cursor: nextCursor`. */
  list(query: AuditQueryDto): Promise<AuditPage> {
    return firstValueFrom(this.http.get<AuditPage>('/api/audit', { params: { ...query } }));
  }
}
