import { Injectable, computed, inject, signal } from '@angular/core';
import type { ComparedReport, ScanComparison } from '@corpus-chat/contracts';
import { describeHttpError } from '../http/api-error';
import { ReportsApi } from './reports-api';

interface ComparisonState {
  /** The report being compared (the newer scan); null when the panel is closed. */
  report: ComparedReport | null;
  /** The report's earlier scans of the same target, newest first: the baselines to choose from. */
  baselines: ComparedReport[];
  baselineId: number | null;
  comparison: ScanComparison | null;
  loading: boolean;
  error: string | null;
}

const CLOSED: ComparisonState = {
  report: null,
  baselines: [],
  baselineId: null,
  comparison: null,
  loading: false,
  error: null,
};

/** Comparing a report with an earlier scan of the same target; only the latest request's answer is kept. */
@Injectable()
export class ScanComparisonStore {
  private readonly api = inject(ReportsApi);
  private readonly state = signal<ComparisonState>(CLOSED);
  private seq = 0;

  readonly report = computed(() => this.state().report);
  readonly baselines = computed(() => this.state().baselines);
  readonly baselineId = computed(() => this.state().baselineId);
  readonly comparison = computed(() => this.state().comparison);
  readonly loading = computed(() => this.state().loading);
  readonly error = computed(() => this.state().error);
  readonly csvUrl = computed(() => {
    const c = this.state().comparison;
    return c ? this.api.comparisonCsvUrl(c.baseline.id, c.report.id) : null;
  });

  /**
   * Opens the comparison of report `reportId` with `baselineId`, or with the scan of the same
   * target recorded just before it. A report without an earlier scan gets a message instead.
   */
  async open(reportId: number, baselineId?: number): Promise<void> {
    const seq = ++this.seq;
    this.state.set({ ...CLOSED, loading: true });
    try {
      const scans = await this.api.sameTargetScans(reportId);
      if (seq !== this.seq) return;
      const at = scans.scans.findIndex((s) => s.id === reportId);
      const baselines = scans.scans.slice(0, Math.max(at, 0)).reverse();
      const chosen = baselineId ?? baselines[0]?.id ?? null;
      const error =
        chosen === null
          ? scans.target
            ? $localize`:@@compare.noEarlier:No earlier scan of this target has been imported.`
            : $localize`:@@compare.noTarget:This report names no target, so it has no other scans to compare with.`
          : null;
      this.state.set({ ...CLOSED, report: scans.report, baselines, baselineId: chosen, error });
      if (chosen !== null) await this.compare(seq);
    } catch (err) {
      if (seq === this.seq) this.state.set({ ...CLOSED, error: describeHttpError(err) });
    }
  }

  /** Compares with another of the earlier scans. */
  async chooseBaseline(baselineId: number): Promise<void> {
    if (!this.state().report) return;
    this.state.update((s) => ({ ...s, baselineId }));
    await this.compare(++this.seq);
  }

  close(): void {
    this.seq++;
    this.state.set(CLOSED);
  }

  private async compare(seq: number): Promise<void> {
    const { report, baselineId } = this.state();
    if (!report || baselineId === null) return;
    this.state.update((s) => ({ ...s, loading: true, error: null, comparison: null }));
    try {
      const comparison = await this.api.compareReports(baselineId, report.id);
      if (seq === this.seq) this.state.update((s) => ({ ...s, comparison, loading: false }));
    } catch (err) {
      if (seq === this.seq)
        this.state.update((s) => ({ ...s, loading: false, error: describeHttpError(err) }));
    }
  }
}
