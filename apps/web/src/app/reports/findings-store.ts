import { Injectable, computed, inject, signal } from '@angular/core';
import type { FindingFilter, ReportSummary, SearchFindingsResult } from '@corpus-chat/contracts';
import { SEARCH_ROWS_CAP } from '@corpus-chat/contracts';
import { describeHttpError } from '../http/api-error';
import { ReportsApi } from './reports-api';

/** Rows per page of the Findings view (the API's cap). */
export const FINDINGS_PAGE_SIZE = SEARCH_ROWS_CAP;

interface FindingsState {
  result: SearchFindingsResult | null;
  loading: boolean;
  error: string | null;
  reports: ReportSummary[];
}

/** The Findings view: one page of a `search_findings` filter with its exact total. */
@Injectable()
export class FindingsStore {
  private readonly api = inject(ReportsApi);
  private readonly state = signal<FindingsState>({ result: null, loading: false, error: null, reports: [] });
  private searchSeq = 0;

  readonly result = computed(() => this.state().result);
  readonly loading = computed(() => this.state().loading);
  readonly error = computed(() => this.state().error);
  readonly reports = computed(() => [...this.state().reports].sort((a, b) => a.filename.localeCompare(b.filename)));
  /** 1-based range shown and the exact total, e.g. `{ from: 51, to: 100, total: 184 }`. */
  readonly range = computed(() => {
    const r = this.state().result;
    if (!r) return null;
    return { from: r.total ? r.offset + 1 : 0, to: r.offset + r.rows.length, total: r.total };
  });
  readonly hasPrevious = computed(() => (this.state().result?.offset ?? 0) > 0);
  readonly hasNext = computed(() => {
    const r = this.state().result;
    return !!r && r.offset + r.rows.length < r.total;
  });

  /** Runs the search; only the latest call's answer is kept. */
  async search(filter: FindingFilter, offset: number): Promise<void> {
    const seq = ++this.searchSeq;
    this.state.update((s) => ({ ...s, loading: true, error: null }));
    try {
      const result = await this.api.searchFindings(filter, { limit: FINDINGS_PAGE_SIZE, offset });
      if (seq === this.searchSeq) this.state.update((s) => ({ ...s, result, loading: false }));
    } catch (err) {
      if (seq === this.searchSeq) this.state.update((s) => ({ ...s, result: null, loading: false, error: describeHttpError(err) }));
    }
  }

  /** Reads the reports for the report filter (once). */
  async loadReports(): Promise<void> {
    if (this.state().reports.length) return;
    try {
      const reports = await this.api.listReports();
      this.state.update((s) => ({ ...s, reports }));
    } catch (err) {
      this.state.update((s) => ({ ...s, error: describeHttpError(err) }));
    }
  }
}
