import { Injectable, computed, inject, signal } from '@angular/core';
import type { ManualFindingDto, ReportSummary } from '@corpus-chat/contracts';
import { describeHttpError, httpStatus } from '../http/api-error';
import { ReportsApi } from './reports-api';

/** Characters of a report's text fetched at a time (the page renders them in one scrollable block). */
export const TEXT_PAGE_CHARS = 100_000;

interface ReviewState {
  report: ReportSummary | null;
  /** The text read so far, and where the next window starts (null: all of it). */
  text: string;
  pageCount: number;
  totalChars: number;
  nextOffset: number | null;
  /** False for a report without extracted text (not a PDF). */
  hasText: boolean;
  loading: boolean;
  saving: boolean;
  error: string | null;
  /** The last finding added by hand (its id), or the outcome of marking the report reviewed. */
  notice: string | null;
  added: { id: number; title: string; severity: string }[];
}

const INITIAL: ReviewState = {
  report: null,
  text: '',
  pageCount: 0,
  totalChars: 0,
  nextOffset: null,
  hasText: false,
  loading: false,
  saving: false,
  error: null,
  notice: null,
  added: [],
};

/** One report's page: the report, its extracted text (loaded in windows), findings entered by hand, marking it reviewed. */
@Injectable()
export class ReportReviewStore {
  private readonly api = inject(ReportsApi);
  private readonly state = signal<ReviewState>(INITIAL);
  private reportId = 0;

  readonly report = computed(() => this.state().report);
  readonly text = computed(() => this.state().text);
  readonly pageCount = computed(() => this.state().pageCount);
  readonly totalChars = computed(() => this.state().totalChars);
  readonly hasMoreText = computed(() => this.state().nextOffset !== null);
  readonly hasText = computed(() => this.state().hasText);
  readonly loading = computed(() => this.state().loading);
  readonly saving = computed(() => this.state().saving);
  readonly error = computed(() => this.state().error);
  readonly notice = computed(() => this.state().notice);
  readonly added = computed(() => this.state().added);
  readonly needsReview = computed(
    () => this.state().report?.status === 'needs_review' && !this.state().report?.archived,
  );

  async load(reportId: number): Promise<void> {
    this.reportId = reportId;
    this.state.set({ ...INITIAL, loading: true });
    try {
      const report = await this.api.report(reportId);
      this.state.update((s) => ({ ...s, report }));
      await this.readText(0);
    } catch (err) {
      this.state.update((s) => ({ ...s, error: describeHttpError(err) }));
    } finally {
      this.state.update((s) => ({ ...s, loading: false }));
    }
  }

  async loadMoreText(): Promise<void> {
    const next = this.state().nextOffset;
    if (next === null) return;
    try {
      await this.readText(next);
    } catch (err) {
      this.state.update((s) => ({ ...s, error: describeHttpError(err) }));
    }
  }

  /** Resolves true when the finding was stored (the form may be cleared). */
  async addFinding(finding: ManualFindingDto): Promise<boolean> {
    this.state.update((s) => ({ ...s, saving: true, error: null, notice: null }));
    try {
      const created = await this.api.addManualFinding(this.reportId, finding);
      this.state.update((s) => ({
        ...s,
        report: s.report ? { ...s.report, findingCount: created.findingCount } : s.report,
        added: [...s.added, { id: created.findingId, title: finding.title, severity: finding.severity }],
        notice: $localize`:@@reports.review.added:Finding added. Findings in this report: ${created.findingCount}:count:.`,
      }));
      return true;
    } catch (err) {
      this.state.update((s) => ({ ...s, error: describeHttpError(err) }));
      if (httpStatus(err) === 409) await this.refreshReport();
      return false;
    } finally {
      this.state.update((s) => ({ ...s, saving: false }));
    }
  }

  async markReviewed(): Promise<void> {
    this.state.update((s) => ({ ...s, saving: true, error: null, notice: null }));
    try {
      const report = await this.api.completeReview(this.reportId);
      this.state.update((s) => ({
        ...s,
        report,
        notice: $localize`:@@reports.review.done:Marked reviewed: the report is ready.`,
      }));
    } catch (err) {
      this.state.update((s) => ({ ...s, error: describeHttpError(err) }));
      await this.refreshReport();
    } finally {
      this.state.update((s) => ({ ...s, saving: false }));
    }
  }

  private async refreshReport(): Promise<void> {
    const report = await this.api.report(this.reportId).catch(() => null);
    if (report) this.state.update((s) => ({ ...s, report }));
  }

  private async readText(offset: number): Promise<void> {
    try {
      const page = await this.api.reportText(this.reportId, offset, TEXT_PAGE_CHARS);
      this.state.update((s) => ({
        ...s,
        hasText: true,
        text: offset === 0 ? page.text : s.text + page.text,
        pageCount: page.pageCount,
        totalChars: page.totalChars,
        nextOffset: page.nextOffset,
      }));
    } catch (err) {
      // A report without text (not a PDF) is a 404 here: the page shows the report without it.
      if (httpStatus(err) === 404) this.state.update((s) => ({ ...s, hasText: false }));
      else throw err;
    }
  }
}
