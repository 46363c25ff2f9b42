import { Injectable, computed, inject, signal } from '@angular/core';
import { REPORT_FILE_EXTENSIONS, type CorpusOverview, type ImportOutcome, type ReportSummary } from '@corpus-chat/contracts';
import { describeHttpError } from '../http/api-error';
import { ReportsApi } from './reports-api';

/** One file of an import batch: waiting, uploading, or its outcome. */
export interface ImportItem {
  file: string;
  state: 'uploading' | 'done';
  outcome?: ImportOutcome;
}

/** Columns the report table sorts by. */
export type ReportSortKey = 'filename' | 'format' | 'status' | 'findingCount' | 'createdAt';
export interface ReportSort {
  key: ReportSortKey;
  dir: 'asc' | 'desc';
}

/** Reports on one page of the table. */
export const REPORTS_PAGE_SIZE = 25;

interface ReportsState {
  reports: ReportSummary[];
  overview: CorpusOverview | null;
  loading: boolean;
  error: string | null;
  imports: ImportItem[];
  /** List archived reports too. */
  showArchived: boolean;
  /** Reports whose archive flag is being changed. */
  busyIds: number[];
  /** The outcome of the last archive / restore, with the report to undo it on. */
  archiveNotice: { ok: boolean; text: string; undo?: { id: number; filename: string; archived: boolean } } | null;
  /** Text the report's file name or format must contain (case-insensitive). */
  query: string;
  sort: ReportSort;
  /** Page of the table, from 0. */
  page: number;
}

/** Every file name ending of the importer's formats plus their media types, for the file picker's `accept`. */
export const IMPORT_ACCEPT = [
  ...new Set(Object.values(REPORT_FILE_EXTENSIONS).flat()),
  'application/json',
  'application/sarif+json',
  'text/xml',
  'text/csv',
].join(',');

/** The report list with the corpus totals, and file imports with a result per file. */
@Injectable()
export class ReportsStore {
  private readonly api = inject(ReportsApi);
  private readonly state = signal<ReportsState>({
    reports: [],
    overview: null,
    loading: false,
    error: null,
    imports: [],
    showArchived: false,
    busyIds: [],
    archiveNotice: null,
    query: '',
    sort: { key: 'createdAt', dir: 'desc' },
    page: 0,
  });
  private loadSeq = 0;

  /** Reports matching the search, in the chosen order (every page). */
  readonly matching = computed(() => {
    const { reports, query, sort } = this.state();
    const q = query.trim().toLowerCase();
    const rows = q ? reports.filter((r) => r.filename.toLowerCase().includes(q) || r.format.toLowerCase().includes(q)) : [...reports];
    const sign = sort.dir === 'asc' ? 1 : -1;
    const value = (r: ReportSummary): string | number => r[sort.key];
    // Ties keep the newest first, so the order is stable whatever the column.
    return rows.sort((a, b) => {
      const [x, y] = [value(a), value(b)];
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true, sensitivity: 'base' });
      return c * sign || b.createdAt.localeCompare(a.createdAt);
    });
  });
  readonly pageCount = computed(() => Math.max(1, Math.ceil(this.matching().length / REPORTS_PAGE_SIZE)));
  /** The current page, clamped to the pages there are (a search or an archive can shrink them). */
  readonly page = computed(() => Math.min(this.state().page, this.pageCount() - 1));
  /** The reports on the current page. */
  readonly reports = computed(() => this.matching().slice(this.page() * REPORTS_PAGE_SIZE, (this.page() + 1) * REPORTS_PAGE_SIZE));
  /** "From–to of total" of the current page (1-based; from = 0 when nothing matches). */
  readonly range = computed(() => {
    const total = this.matching().length;
    const from = total ? this.page() * REPORTS_PAGE_SIZE + 1 : 0;
    return { from, to: Math.min(total, (this.page() + 1) * REPORTS_PAGE_SIZE), total };
  });
  readonly query = computed(() => this.state().query);
  readonly sort = computed(() => this.state().sort);
  readonly overview = computed(() => this.state().overview);
  readonly loading = computed(() => this.state().loading);
  readonly error = computed(() => this.state().error);
  readonly imports = computed(() => this.state().imports);
  readonly importing = computed(() => this.state().imports.some((i) => i.state === 'uploading'));
  readonly showArchived = computed(() => this.state().showArchived);
  readonly archiveNotice = computed(() => this.state().archiveNotice);

  /** Shows the reports whose file name or format contains `query`, from the first page. */
  setQuery(query: string): void {
    this.state.update((s) => ({ ...s, query, page: 0 }));
  }

  /** Sorts by `key`: a new column starts ascending (dates and counts descending), the same column flips. */
  sortBy(key: ReportSortKey): void {
    this.state.update((s) => {
      const dir = s.sort.key === key ? (s.sort.dir === 'asc' ? 'desc' : 'asc') : key === 'createdAt' || key === 'findingCount' ? 'desc' : 'asc';
      return { ...s, sort: { key, dir }, page: 0 };
    });
  }

  /** Goes to page `page` (from 0), within the pages there are. */
  goToPage(page: number): void {
    this.state.update((s) => ({ ...s, page: Math.max(0, Math.min(page, this.pageCount() - 1)) }));
  }

  /** Whether report `id`'s archive flag is being changed right now. */
  isBusy(id: number): boolean {
    return this.state().busyIds.includes(id);
  }

  /** Reads the reports (archived ones too when `showArchived`) and the corpus totals; only the latest call's answer is kept. */
  async load(): Promise<void> {
    const seq = ++this.loadSeq;
    this.state.update((s) => ({ ...s, loading: true, error: null }));
    try {
      const [reports, overview] = await Promise.all([this.api.listReports(this.state().showArchived), this.api.overview().catch(() => null)]);
      if (seq === this.loadSeq) this.state.update((s) => ({ ...s, reports, overview, loading: false }));
    } catch (err) {
      if (seq === this.loadSeq) this.state.update((s) => ({ ...s, loading: false, error: describeHttpError(err) }));
    }
  }

  /** Lists archived reports too (or not) and reloads. */
  async setShowArchived(show: boolean): Promise<void> {
    if (show === this.state().showArchived) return;
    this.state.update((s) => ({ ...s, showArchived: show, archiveNotice: null }));
    await this.load();
  }

  /**
   * Archives (`archived: true`: the report's findings leave every count, search and answer) or
   * restores a report, then reloads the list and totals. The outcome goes to `archiveNotice`: the
   * API's message on failure (409 when restoring would duplicate a report imported since), an undo
   * on success.
   */
  async setArchived(report: Pick<ReportSummary, 'id' | 'filename'>, archived: boolean): Promise<void> {
    if (this.isBusy(report.id)) return;
    this.state.update((s) => ({ ...s, busyIds: [...s.busyIds, report.id], archiveNotice: null }));
    let notice: ReportsState['archiveNotice'];
    try {
      await this.api.setArchived(report.id, archived);
      notice = archived
        ? { ok: true, text: `Archived ${report.filename}: its findings no longer count.`, undo: { id: report.id, filename: report.filename, archived: false } }
        : { ok: true, text: `Restored ${report.filename}: its findings count again.`, undo: { id: report.id, filename: report.filename, archived: true } };
    } catch (err) {
      notice = { ok: false, text: `${report.filename}: ${describeHttpError(err)}` };
    }
    this.state.update((s) => ({ ...s, busyIds: s.busyIds.filter((id) => id !== report.id), archiveNotice: notice }));
    await this.load();
  }

  dismissArchiveNotice(): void {
    this.state.update((s) => ({ ...s, archiveNotice: null }));
  }

  /** Reverses the last archive / restore. */
  async undoArchive(): Promise<void> {
    const undo = this.state().archiveNotice?.undo;
    if (undo) await this.setArchived(undo, undo.archived);
  }

  /**
   * Imports files one request per file, so each gets its own result (the importer's error for a
   * file it refuses) and one bad file never hides the others. Reloads the list afterwards.
   */
  async importFiles(files: readonly File[]): Promise<void> {
    if (!files.length) return;
    const batch: ImportItem[] = files.map((f) => ({ file: f.name, state: 'uploading' }));
    this.state.update((s) => ({ ...s, imports: [...batch, ...s.imports.filter((i) => i.state === 'done')].slice(0, 50) }));
    for (const file of files) {
      let outcome: ImportOutcome;
      try {
        outcome = (await this.api.importFiles([file]))[0] ?? { ok: false, file: file.name, error: 'The server returned no result.', code: 'INVALID' };
      } catch (err) {
        outcome = { ok: false, file: file.name, error: describeHttpError(err), code: 'INVALID' };
      }
      this.state.update((s) => ({
        ...s,
        imports: s.imports.map((i) => (i.file === file.name && i.state === 'uploading' ? { file: file.name, state: 'done', outcome } : i)),
      }));
    }
    await this.load();
  }

  clearImports(): void {
    this.state.update((s) => ({ ...s, imports: s.imports.filter((i) => i.state === 'uploading') }));
  }
}
