import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type {
  CorpusOverview,
  FindingDetailResult,
  FindingFilter,
  ImportOutcome,
  ReportSummary,
  SearchFindingsResult,
} from '@corpus-chat/contracts';
import { findingFilterToQueryParams } from './finding-filter-params';

/** `/api/reports`, `/api/findings`, `/api/corpus`: the shared corpus (read by every operator). */
@Injectable({ providedIn: 'root' })
export class ReportsApi {
  private readonly http = inject(HttpClient);

  listReports(): Promise<ReportSummary[]> {
    return firstValueFrom(this.http.get<ReportSummary[]>('/api/reports'));
  }

  overview(): Promise<CorpusOverview> {
    return firstValueFrom(this.http.get<CorpusOverview>('/api/corpus/overview'));
  }

  /** `POST /api/reports/import` (multipart, field `files`): one outcome per file, in order. */
  async importFiles(files: readonly File[]): Promise<ImportOutcome[]> {
    const form = new FormData();
    for (const file of files) form.append('files', file, file.name);
    const body = await firstValueFrom(this.http.post<ImportOutcome[] | { results: ImportOutcome[] }>('/api/reports/import', form));
    return Array.isArray(body) ? body : body.results;
  }

  /** `GET /api/findings`: `total` is exact; `rows` one page of at most `limit`. */
  searchFindings(filter: FindingFilter, page: { limit: number; offset: number }): Promise<SearchFindingsResult> {
    const params = { ...findingFilterToQueryParams(filter), limit: String(page.limit), offset: String(page.offset) };
    return firstValueFrom(this.http.get<SearchFindingsResult>('/api/findings', { params }));
  }

  findingDetail(id: number): Promise<FindingDetailResult> {
    return firstValueFrom(this.http.get<FindingDetailResult>(`/api/findings/${id}`));
  }
}
