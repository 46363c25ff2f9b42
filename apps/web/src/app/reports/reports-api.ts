import { HttpClient } from '@angular/common/http';
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
  ImportJobView,
  ManualFindingCreated,
  ManualFindingDto,
  QueuedImportsResponse,
  ReportTextView,
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
    return firstValueFrom(
      this.http.patch<ReportSummary>(`/api/reports/${id}`, { archived } satisfies UpdateReportDto),
    );
  }

  /** `GET /api/reports/:id`: one report, archived or not; 404 unknown. */
  report(id: number): Promise<ReportSummary> {
    return firstValueFrom(this.http.get<ReportSummary>(`/api/reports/${id}`));
  }

  /** `GET /api/reports/:id/text`: `limit` characters of a PDF report's text from `offset`; 404 when it has none. */
  reportText(id: number, offset: number, limit: number): Promise<ReportTextView> {
    return firstValueFrom(
      this.http.get<ReportTextView>(`/api/reports/${id}/text`, { params: { offset, limit } }),
    );
  }

  /** `POST /api/reports/:id/findings`: a finding entered by hand; 400 invalid, 409 the report is not waiting for review. */
  addManualFinding(id: number, finding: ManualFindingDto): Promise<ManualFindingCreated> {
    return firstValueFrom(this.http.post<ManualFindingCreated>(`/api/reports/${id}/findings`, finding));
  }

  /** `POST /api/reports/:id/review-complete`: `needs_review` → `ready`; 409 otherwise. */
  completeReview(id: number): Promise<ReportSummary> {
    return firstValueFrom(this.http.post<ReportSummary>(`/api/reports/${id}/review-complete`, {}));
  }

  overview(): Promise<CorpusOverview> {
    return firstValueFrom(this.http.get<CorpusOverview>('/api/corpus/overview'));
  }

  /** `POST /api/reports/import` (multipart `files`): 202, one queued import per file; 413, 400 or 503. */
  async queueImports(files: readonly File[]): Promise<ImportJobView[]> {
    const form = new FormData();
    for (const file of files) form.append('files', file, file.name);
    return (await firstValueFrom(this.http.post<QueuedImportsResponse>('/api/reports/import', form))).imports;
  }

  /** `POST /api/imports/:id/cancel`: 409 when it already ended. */
  cancelImport(id: string): Promise<ImportJobView> {
    return firstValueFrom(this.http.post<ImportJobView>(`/api/imports/${id}/cancel`, {}));
  }

  /** `GET /api/findings`: `total` is exact; `rows` one page of at most `limit`. */
  searchFindings(
    filter: FindingFilter,
    page: { limit: number; offset: number },
  ): Promise<SearchFindingsResult> {
    const params = {
      ...findingFilterToQueryParams(filter),
      limit: String(page.limit),
      offset: String(page.offset),
    };
    return firstValueFrom(this.http.get<SearchFindingsResult>('/api/findings', { params }));
  }

  /** `GET /api/reports/:id/scans`: the report's scans of the same target, oldest recorded scan first. */
  sameTargetScans(id: number): Promise<SameTargetScans> {
    return firstValueFrom(this.http.get<SameTargetScans>(`/api/reports/${id}/scans`));
  }

  /** `GET /api/reports/compare`: new, fixed and unchanged findings from `baseline` to `report`; 422 for scans of different targets. */
  compareReports(baseline: number, report: number): Promise<ScanComparison> {
    return firstValueFrom(
      this.http.get<ScanComparison>('/api/reports/compare', { params: { baseline, report } }),
    );
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
