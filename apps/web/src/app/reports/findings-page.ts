import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  signal,
  untracked,
} from '@angular/core';
import { DecimalPipe } from '@angular/common';
import { toSignal } from '@angular/core/rxjs-interop';
import { NonNullableFormBuilder, ReactiveFormsModule, type ValidatorFn } from '@angular/forms';
import { ActivatedRoute, Router, RouterLink, type Params } from '@angular/router';
import {
  FINDING_EDIT_FILTERS,
  FINDING_SOURCES,
  SEVERITIES,
  TRIAGE_STATUSES,
  VERDICT_STATUSES,
  type FindingEditFilter,
  type FindingSource,
  type FindingFilter,
  type TriageStatus,
} from '@corpus-chat/contracts';
import { severityLabel, triageStatusLabel, verdictLabel } from '../i18n/labels';
import { DisplayTextPipe } from '../shared/display-text';
import {
  findingFilterFromQueryParams,
  findingFilterToQueryParams,
  findingListParams,
  parseCweInput,
} from './finding-filter-params';
import { FINDING_COLUMNS, ariaSort, sortArrow, sortFindingRows, type FindingSortKey } from './finding-sort';
import { FINDINGS_PAGE_SIZE, FindingsStore } from './findings-store';

/** The `edited` filter's choices in words (the filter summary uses them too). */
const EDIT_FILTER_LABELS: Record<FindingEditFilter, string> = {
  any: $localize`:@@findings.edited.any:edited by an operator`,
  severity: $localize`:@@findings.edited.severity:re-rated (severity changed)`,
};

/** The `origin` filter's choices in words (the filter summary uses them too). */
const ORIGIN_LABELS: Record<FindingSource, string> = {
  import: $localize`:@@findings.origin.import:from a scanner`,
  extraction: $localize`:@@findings.origin.extraction:extracted by a model`,
  manual: $localize`:@@findings.origin.manual:entered by hand`,
};

/** A CWE field holding something other than a positive whole number (or `CWE-<n>`). */
const cweValidator: ValidatorFn = (control) => (parseCweInput(control.value) === null ? { cwe: true } : null);

/**
 * `/reports/findings`: the `search_findings` filters (text, severity, report, CWE, verdict, status)
 * with the exact total and paging, and a bulk triage status change of the ticked findings. The URL holds the filter, so a tool card's link opens the same search.
 */
@Component({
  selector: 'cc-findings-page',
  imports: [DecimalPipe, DisplayTextPipe, ReactiveFormsModule, RouterLink],
  providers: [FindingsStore],
  templateUrl: './findings-page.html',
  styleUrl: './findings-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class FindingsPage {
  protected readonly store = inject(FindingsStore);
  private readonly router = inject(Router);
  private readonly queryParams = toSignal(inject(ActivatedRoute).queryParams, { initialValue: {} as Params });

  protected readonly severityLabel = severityLabel;
  protected readonly statusLabel = triageStatusLabel;
  protected readonly verdictLabel = verdictLabel;
  protected readonly anyLabel = $localize`:@@audit.any:Any`;
  protected readonly idLabel = $localize`:@@findings.id:Id`;
  protected readonly severities = SEVERITIES;
  protected readonly verdicts = VERDICT_STATUSES;
  protected readonly statuses = TRIAGE_STATUSES;
  protected readonly editFilters = FINDING_EDIT_FILTERS;
  protected readonly editFilterLabels = EDIT_FILTER_LABELS;
  protected readonly originFilters = FINDING_SOURCES;
  protected readonly originLabels = ORIGIN_LABELS;
  protected readonly pageSelected = computed(() => {
    const rows = this.store.result()?.rows ?? [];
    return rows.length > 0 && rows.every((r) => this.store.selected().has(r.id));
  });
  protected readonly filter = computed(() => findingFilterFromQueryParams(this.queryParams()));
  protected readonly page = computed(() => {
    const p = Number(this.queryParams()['page']);
    return Number.isInteger(p) && p >= 1 ? p : 1;
  });
  /** The active filter in words, e.g. `text “SQL injection”, severity critical`. */
  protected readonly filterSummary = computed(() => {
    const f = this.filter();
    const report = f.reportId
      ? (this.store.reports().find((r) => r.id === f.reportId)?.filename ?? `#${f.reportId}`)
      : f.reportName;
    const parts = [
      f.text && $localize`:@@findings.summaryText:text “${f.text}:text:”`,
      f.severity && $localize`:@@findings.summarySeverity:severity ${severityLabel(f.severity)}:severity:`,
      report && $localize`:@@findings.summaryReport:report ${report}:report:`,
      f.cwe && `CWE-${f.cwe}`,
      f.verdict && $localize`:@@findings.summaryVerdict:verdict ${verdictLabel(f.verdict)}:verdict:`,
      f.status && $localize`:@@findings.summaryStatus:status ${triageStatusLabel(f.status)}:status:`,
      f.edited && EDIT_FILTER_LABELS[f.edited],
      f.origin && ORIGIN_LABELS[f.origin],
    ].filter(Boolean);
    return parts.join(', ');
  });

  /** The filter and page, carried to a finding's page so its breadcrumb comes back here. */
  protected readonly listParams = computed(() => findingListParams(this.filter(), this.page()));
  /** Downloads of every finding of the current filter (plain links: the session cookie authenticates a GET). */
  protected readonly exportHrefs = computed(() => {
    const query = new URLSearchParams(findingFilterToQueryParams(this.filter())).toString();
    const href = (ext: 'csv' | 'json') => `/api/findings/export.${ext}${query ? `?${query}` : ''}`;
    return { csv: href('csv'), json: href('json') };
  });
  protected readonly ariaSort = ariaSort;
  protected readonly sortArrow = sortArrow;
  /** The column the rows of this page are sorted by (null: the API's order, severity then id). */
  protected readonly sort = signal<{ key: FindingSortKey; dir: 'asc' | 'desc' } | null>(null);
  protected readonly columns = FINDING_COLUMNS;
  /** This page's rows in the chosen order. */
  protected readonly rows = computed(() => sortFindingRows(this.store.result()?.rows ?? [], this.sort()));

  protected readonly form = inject(NonNullableFormBuilder).group({
    text: [''],
    severity: [''],
    reportId: [''],
    cwe: ['', [cweValidator]],
    verdict: [''],
    status: [''],
    edited: [''],
    origin: [''],
  });
  protected readonly bulkForm = inject(NonNullableFormBuilder).group({ status: [''], reason: [''] });
  /** Said once after a page past the last was replaced by the last page. */
  protected readonly pageNotice = signal<string | null>(null);

  constructor() {
    void this.store.loadReports();
    effect(() => {
      const filter = this.filter();
      const page = this.page();
      untracked(() => {
        // Fields the filter leaves out reset to empty; `reportName` has no field.
        this.form.reset(findingFilterToQueryParams(filter));
        void this.store.search(filter, (page - 1) * FINDINGS_PAGE_SIZE);
      });
    });
    // `?page=999` of 4 pages: show the last page instead of an empty "49,901–49,900".
    effect(() => {
      const last = this.store.pageBeyondEnd();
      if (last === null) return;
      untracked(() => {
        this.pageNotice.set(
          $localize`:@@findings.noSuchPage:There is no page ${this.page()}:page:: showing page ${last}:last:, the last.`,
        );
        this.goToPage(last, true);
      });
    });
  }

  protected applyFilter(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const v = this.form.getRawValue();
    const filter = findingFilterFromQueryParams({ ...v, cwe: parseCweInput(v.cwe) });
    // A report picked by name from a link stays until the report field is changed.
    const current = this.filter();
    if (!v.reportId && current.reportName) filter.reportName = current.reportName;
    this.pageNotice.set(null);
    void this.router.navigate([], { queryParams: findingFilterToQueryParams(filter) });
  }

  /** Applies the bulk form's status to the ticked findings. */
  protected setStatusOfSelected(): void {
    const { status, reason } = this.bulkForm.getRawValue();
    if (!status) return;
    void this.store
      .setStatusOfSelected(
        status as TriageStatus,
        reason,
        this.filter(),
        (this.page() - 1) * FINDINGS_PAGE_SIZE,
      )
      .then((ok) => ok && this.bulkForm.reset({ status: '', reason: '' }));
  }

  protected clearFilter(): void {
    this.pageNotice.set(null);
    this.form.reset();
    void this.router.navigate([], { queryParams: {} });
  }

  /** Opens `page` of the current filter; `replaceUrl` when correcting a page that does not exist. */
  protected goToPage(page: number, replaceUrl = false): void {
    if (!replaceUrl) this.pageNotice.set(null);
    void this.router.navigate([], { queryParams: findingListParams(this.filter(), page), replaceUrl });
  }

  /** Sorts this page by `key`; the same column again flips the order, a third time restores the API's order. */
  protected sortBy(key: FindingSortKey): void {
    const current = this.sort();
    const first = key === 'cvss' ? 'desc' : 'asc';
    if (current?.key !== key) this.sort.set({ key, dir: first });
    else if (current.dir === first) this.sort.set({ key, dir: first === 'asc' ? 'desc' : 'asc' });
    else this.sort.set(null);
  }

  protected tickLabel(id: number): string {
    return $localize`:@@findings.tick:Tick finding ${id}:id:`;
  }

  protected hasFilter(f: FindingFilter): boolean {
    return Object.keys(findingFilterToQueryParams(f)).length > 0;
  }
}
