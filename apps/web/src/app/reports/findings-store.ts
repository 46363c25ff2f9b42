import { Injectable, computed, inject, signal } from '@angular/core';
import type {
  FindingFilter,
  ReportSummary,
  SearchFindingsResult,
  TriageStatus,
} from '@corpus-chat/contracts';
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
  private readonly selection = signal<ReadonlySet<number>>(new Set());
  /** The last bulk change: how many findings took which status (worded by the page, with its plural), or its error. */
  private readonly bulk = signal<{
    busy: boolean;
    changed: { count: number; status: TriageStatus } | null;
    error: string | null;
  }>({
    busy: false,
    changed: null,
    error: null,
  });

  /** Findings ticked for a bulk status change (kept across pages until changed or cleared). */
  readonly selected = this.selection.asReadonly();
  readonly bulkState = this.bulk.asReadonly();

  readonly result = computed(() => this.state().result);
  readonly loading = computed(() => this.state().loading);
  readonly error = computed(() => this.state().error);
  readonly reports = computed(() =>
    [...this.state().reports].sort((a, b) => a.filename.localeCompare(b.filename)),
  );
  /**
   * 1-based range shown and the exact total, e.g. `{ from: 51, to: 100, total: 184 }`; `from` and
   * `to` are 0 when the page holds no rows (an empty result, or a page past the last).
   */
  readonly range = computed(() => {
    const r = this.state().result;
    if (!r) return null;
    return r.rows.length
      ? { from: r.offset + 1, to: r.offset + r.rows.length, total: r.total }
      : { from: 0, to: 0, total: r.total };
  });
  /** Pages of `FINDINGS_PAGE_SIZE` the total fills (at least 1), once a result is in. */
  readonly pageCount = computed(() => {
    const r = this.state().result;
    return r ? Math.max(1, Math.ceil(r.total / FINDINGS_PAGE_SIZE)) : null;
  });
  /**
   * The page to show instead when the result's offset lies past the last page (e.g. `?page=999`
   * of 184 findings → 4), else null.
   */
  readonly pageBeyondEnd = computed(() => {
    const r = this.state().result;
    if (!r || r.rows.length || r.offset === 0 || r.offset < r.total) return null;
    return Math.max(1, Math.ceil(r.total / FINDINGS_PAGE_SIZE));
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
      if (seq === this.searchSeq)
        this.state.update((s) => ({ ...s, result: null, loading: false, error: describeHttpError(err) }));
    }
  }

  toggle(id: number): void {
    this.selection.update((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  }

  /** Ticks every finding of the page shown, or unticks them when all are ticked. */
  togglePage(): void {
    const ids = this.state().result?.rows.map((r) => r.id) ?? [];
    this.selection.update((s) => {
      const next = new Set(s);
      if (ids.every((id) => next.has(id))) ids.forEach((id) => next.delete(id));
      else ids.forEach((id) => next.add(id));
      return next;
    });
  }

  clearSelection(): void {
    this.selection.set(new Set());
  }

  /**
   * Sets the triage status of the ticked findings (all or none: the API refuses the whole batch
   * when one finding cannot make the transition), then searches again with `filter` at `offset`.
   */
  async setStatusOfSelected(
    status: TriageStatus,
    reason: string,
    filter: FindingFilter,
    offset: number,
  ): Promise<boolean> {
    const ids = [...this.selection()];
    if (!ids.length || this.bulk().busy) return false;
    this.bulk.set({ busy: true, changed: null, error: null });
    try {
      const result = await this.api.setStatusOfMany(ids, {
        status,
        ...(reason.trim() ? { reason: reason.trim() } : {}),
      });
      this.selection.set(new Set());
      this.bulk.set({ busy: false, error: null, changed: { count: result.changed.length, status } });
      await this.search(filter, offset);
      return true;
    } catch (err) {
      this.bulk.set({ busy: false, changed: null, error: describeHttpError(err) });
      return false;
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
