import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type {
  AddFindingNoteDto,
  BulkStatusResult,
  CorpusOverview,
  EditFindingDto,
  FindingHistory,
  RecordRetestDto,
  SetFindingStatusDto,
  FindingDetail,
  FindingFilter,
  ImportOutcome,
  ImportReportsResponse,
  ReportSummary,
  SameTargetScans,
  ScanComparison,
  SearchFindingsResult,
  UpdateReportDto,
} from '@corpus-chat/contracts';
import { findingFilterToQueryParams } from './finding-filter-params';

/** `/api/reports`, `/api/findings`, `/api/corpus`: the shared corpus (read by every operator). */
@Injectable({ providedIn: 'root' })
export class ReportsApi {
  private readonly http = inject(HttpClient);

  /** `GET /api/reports`: every report with its counts; archived ones only with `includeArchived`. */
  listReports(includeArchived = false): Promise<ReportSummary[]> {
    const params = includeArchived ? { includeArchived: 'true' } : undefined;
    return firstValueFrom(this.http.get<ReportSummary[]>('/api/reports', { params }));
  }

  /**
   * `PATCH /api/reports/:id {archived}`: archive (its findings leave every count and search) or
   * restore a report. 404 unknown id; 409 when restoring would duplicate a report imported since.
   */
  setArchived(id: number, archived: boolean): Promise<ReportSummary> {
    return firstValueFrom(this.http.patch<ReportSummary>(`/api/reports/${id}`, { archived } satisfies UpdateReportDto));
  }

  overview(): Promise<CorpusOverview> {
    return firstValueFrom(this.http.get<CorpusOverview>('/api/corpus/overview'));
  }

  /**
   * `POST /api/reports/import` (multipart, field `files`): one outcome per file, in order. The API
   * answers 409/413/422 when every file was refused for the same reason, with the outcomes in the
   * error body: those are returned like a success, so each file shows its own reason. A refusal of
   * the whole request (413 too large or too many files: `results: []`) is thrown with its message.
   */
  async importFiles(files: readonly File[]): Promise<ImportOutcome[]> {
    const form = new FormData();
    for (const file of files) form.append('files', file, file.name);
    try {
      return (await firstValueFrom(this.http.post<ImportReportsResponse>('/api/reports/import', form))).results;
    } catch (err) {
      const results = err instanceof HttpErrorResponse ? (err.error as Partial<ImportReportsResponse> | null)?.results : undefined;
      if (Array.isArray(results) && results.length) return results;
      throw err;
    }
  }

  /** `GET /api/findings`: `total` is exact; `rows` one page of at most `limit`. */
  searchFindings(filter: FindingFilter, page: { limit: number; offset: number }): Promise<SearchFindingsResult> {
    const params = { ...findingFilterToQueryParams(filter), limit: String(page.limit), offset: String(page.offset) };
    return firstValueFrom(this.http.get<SearchFindingsResult>('/api/findings', { params }));
  }

  /** `GET /api/reports/:id/scans`: the report's scans of the same target, oldest recorded scan first. */
  sameTargetScans(id: number): Promise<SameTargetScans> {
    return firstValueFrom(this.http.get<SameTargetScans>(`/api/reports/${id}/scans`));
  }

  /** `GET /api/reports/compare`: new, fixed and unchanged findings from `baseline` to `report`; 422 for scans of different targets. */
  compareReports(baseline: number, report: number): Promise<ScanComparison> {
    return firstValueFrom(this.http.get<ScanComparison>('/api/reports/compare', { params: { baseline, report } }));
  }

  /** The comparison as a CSV download (a plain link: the session cookie authenticates a GET). */
  comparisonCsvUrl(baseline: number, report: number): string {
    return `/api/reports/compare?baseline=${baseline}&report=${report}&format=csv`;
  }

  /** `GET /api/findings/:id`; 404 for an unknown id. */
  findingDetail(id: number): Promise<FindingDetail> {
    return firstValueFrom(this.http.get<FindingDetail>(`/api/findings/${id}`));
  }

  /** `GET /api/findings/:id/history`: every version, status change and retest. */
  findingHistory(id: number): Promise<FindingHistory> {
    return firstValueFrom(this.http.get<FindingHistory>(`/api/findings/${id}/history`));
  }

  /** `PATCH /api/findings/:id/status`; 400 a missing reason, 409 a transition not allowed. */
  setStatus(id: number, change: SetFindingStatusDto): Promise<FindingDetail> {
    return firstValueFrom(this.http.patch<FindingDetail>(`/api/findings/${id}/status`, change));
  }

  /** `POST /api/findings/status`: the same change for many findings, all or none. */
  setStatusOfMany(ids: number[], change: SetFindingStatusDto): Promise<BulkStatusResult> {
    return firstValueFrom(this.http.post<BulkStatusResult>('/api/findings/status', { ids, ...change }));
  }

  /** `POST /api/findings/:id/versions`: a new version with the changed fields and the reason. */
  editFinding(id: number, edit: EditFindingDto): Promise<FindingDetail> {
    return firstValueFrom(this.http.post<FindingDetail>(`/api/findings/${id}/versions`, edit));
  }

  /** `POST /api/findings/:id/notes` */
  addNote(id: number, note: AddFindingNoteDto): Promise<FindingDetail> {
    return firstValueFrom(this.http.post<FindingDetail>(`/api/findings/${id}/notes`, note));
  }

  /** `POST /api/findings/:id/retests`: a retest run by hand and its verdict. */
  recordRetest(id: number, retest: RecordRetestDto): Promise<FindingDetail> {
    return firstValueFrom(this.http.post<FindingDetail>(`/api/findings/${id}/retests`, retest));
  }
}
