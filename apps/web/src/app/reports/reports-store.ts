import { DestroyRef, Injectable, computed, inject, signal } from '@angular/core';
import {
  type CorpusOverview,
  type ExtractionProgress,
  type ImportJobView,
  type ImportOutcome,
  type ReportSummary,
} from '@corpus-chat/contracts';
import { ChatSocket } from '../chat/chat-socket';
import { describeHttpError } from '../http/api-error';
import { compareCells } from './finding-sort';
import { ReportsApi } from './reports-api';

/**
 * One file of an import batch: uploading, then queued and parsing on the worker (`importId` set),
 * then done with its outcome (imported, or refused with the importer's reason) or cancelled.
 */
export interface ImportItem {
  file: string;
  state: 'uploading' | 'queued' | 'parsing' | 'done' | 'cancelled';
  importId?: string;
  outcome?: ImportOutcome;
  /** A PDF's report and the model's progress on it. */
  extraction?: ExtractionProgress;
}

/** Columns the report table sorts by. */
export type ReportSortKey = 'filename' | 'format' | 'status' | 'findingCount' | 'createdAt';
export interface ReportSort {
  key: ReportSortKey;
  dir: 'asc' | 'desc';
}

/** Reports on one page of the table. */
export const REPORTS_PAGE_SIZE = 25;

/** What an import's status change makes of its item. */
function itemOf(job: ImportJobView): ImportItem {
  const extraction = job.extraction ? { extraction: job.extraction } : {};
  if (job.status === 'queued' || job.status === 'parsing' || job.status === 'cancelled')
    return { file: job.file, state: job.status, importId: job.id, ...extraction };
  const outcome: ImportOutcome = job.outcome ?? {
    ok: false,
    file: job.file,
    code: 'INVALID',
    error: job.error ?? $localize`:@@reports.importFailed:the import failed`,
  };
  return { file: job.file, state: 'done', importId: job.id, outcome, ...extraction };
}

const isRunning = (i: ImportItem): boolean =>
  i.state === 'uploading' || i.state === 'queued' || i.state === 'parsing';

/** Finished results kept in the list; running ones always stay, or their outcome would go unseen. */
const KEPT_RESULTS = 50;

/** A new batch on top of the earlier items, dropping only the oldest finished results. */
function withBatch(batch: ImportItem[], earlier: ImportItem[]): ImportItem[] {
  let room = KEPT_RESULTS - batch.length;
  return [...batch, ...earlier.filter((i) => isRunning(i) || room-- > 0)];
}

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
  archiveNotice: {
    ok: boolean;
    text: string;
    undo?: { id: number; filename: string; archived: boolean };
  } | null;
  /** Text the report's file name or format must contain (case-insensitive). */
  query: string;
  sort: ReportSort;
  /** Page of the table, from 0. */
  page: number;
}

/** The file picker's `accept`, shared with the chat composer's. */
export { IMPORT_ACCEPT } from '@corpus-chat/contracts';

/** The report list with the corpus totals, and file imports with a result per file. */
@Injectable()
export class ReportsStore {
  private readonly api = inject(ReportsApi);
  private readonly socket = inject(ChatSocket);
  /** Status changes that arrived before the upload's answer named their import. */
  private readonly early = new Map<string, ImportJobView>();
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

  constructor() {
    const off = this.socket.onImportEvent((job) => this.applyImportEvent(job));
    inject(DestroyRef).onDestroy(off);
  }

  /** Reports matching the search, in the chosen order (every page). */
  readonly matching = computed(() => {
    const { reports, query, sort } = this.state();
    const q = query.trim().toLowerCase();
    const rows = q
      ? reports.filter((r) => r.filename.toLowerCase().includes(q) || r.format.toLowerCase().includes(q))
      : [...reports];
    const sign = sort.dir === 'asc' ? 1 : -1;
    // Ties keep the newest first, so the order is stable whatever the column.
    return rows.sort(
      (a, b) => compareCells(a[sort.key], b[sort.key]) * sign || b.createdAt.localeCompare(a.createdAt),
    );
  });
  readonly pageCount = computed(() => Math.max(1, Math.ceil(this.matching().length / REPORTS_PAGE_SIZE)));
  /** The current page, clamped to the pages there are (a search or an archive can shrink them). */
  readonly page = computed(() => Math.min(this.state().page, this.pageCount() - 1));
  /** The reports on the current page. */
  readonly reports = computed(() =>
    this.matching().slice(this.page() * REPORTS_PAGE_SIZE, (this.page() + 1) * REPORTS_PAGE_SIZE),
  );
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
  readonly importing = computed(() => this.state().imports.some(isRunning));
  readonly showArchived = computed(() => this.state().showArchived);
  readonly archiveNotice = computed(() => this.state().archiveNotice);

  /** Shows the reports whose file name or format contains `query`, from the first page. */
  setQuery(query: string): void {
    this.state.update((s) => ({ ...s, query, page: 0 }));
  }

  /** Sorts by `key`: a new column starts ascending (dates and counts descending), the same column flips. */
  sortBy(key: ReportSortKey): void {
    this.state.update((s) => {
      const dir =
        s.sort.key === key
          ? s.sort.dir === 'asc'
            ? 'desc'
            : 'asc'
          : key === 'createdAt' || key === 'findingCount'
            ? 'desc'
            : 'asc';
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
      const [reports, overview] = await Promise.all([
        this.api.listReports(this.state().showArchived),
        this.api.overview().catch(() => null),
      ]);
      if (seq === this.loadSeq) this.state.update((s) => ({ ...s, reports, overview, loading: false }));
    } catch (err) {
      if (seq === this.loadSeq)
        this.state.update((s) => ({ ...s, loading: false, error: describeHttpError(err) }));
    }
  }

  /** Lists archived reports too (or not) and reloads. */
  async setShowArchived(show: boolean): Promise<void> {
    if (show === this.state().showArchived) return;
    this.state.update((s) => ({ ...s, showArchived: show, archiveNotice: null }));
    await this.load();
  }

  /**
   * Archives or restores a report and reloads; `archiveNotice` gets the API's message on failure
   * (409 when restoring would duplicate) or an undo on success.
   */
  async setArchived(report: Pick<ReportSummary, 'id' | 'filename'>, archived: boolean): Promise<void> {
    if (this.isBusy(report.id)) return;
    this.state.update((s) => ({ ...s, busyIds: [...s.busyIds, report.id], archiveNotice: null }));
    let notice: ReportsState['archiveNotice'];
    try {
      await this.api.setArchived(report.id, archived);
      notice = {
        ok: true,
        text: archived
          ? $localize`:@@reports.archivedNotice:Archived ${report.filename}:name:: its findings no longer count.`
          : $localize`:@@reports.restoredNotice:Restored ${report.filename}:name:: its findings count again.`,
        undo: { id: report.id, filename: report.filename, archived: !archived },
      };
    } catch (err) {
      notice = { ok: false, text: `${report.filename}: ${describeHttpError(err)}` };
    }
    this.state.update((s) => ({
      ...s,
      busyIds: s.busyIds.filter((id) => id !== report.id),
      archiveNotice: notice,
    }));
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

  /** Uploads one request per file, so a refused file never hides the others; progress comes by socket. */
  async importFiles(files: readonly File[]): Promise<void> {
    if (!files.length) return;
    this.socket.connect();
    const batch: ImportItem[] = files.map((f) => ({ file: f.name, state: 'uploading' }));
    // The last archive's Undo may no longer apply once a file comes back (409 on unarchive).
    this.state.update((s) => ({
      ...s,
      archiveNotice: null,
      imports: withBatch(batch, s.imports),
    }));
    for (const [index, file] of files.entries()) {
      let next: ImportItem;
      try {
        const [job] = await this.api.queueImports([file]);
        next = job
          ? itemOf(this.early.get(job.id) ?? job)
          : refused(file.name, $localize`:@@reports.noImport:The server returned no import.`);
        if (job) this.early.delete(job.id);
      } catch (err) {
        next = refused(file.name, describeHttpError(err));
      }
      const item = batch[index];
      this.state.update((s) => ({ ...s, imports: s.imports.map((i) => (i === item ? next : i)) }));
      if (next.outcome?.ok) void this.load();
    }
  }

  /** Asks the worker to drop a queued or parsing import; the socket then reports it cancelled. */
  async cancelImport(item: ImportItem): Promise<void> {
    if (!item.importId) return;
    try {
      this.applyImportEvent(await this.api.cancelImport(item.importId));
    } catch (err) {
      // 409: it ended meanwhile; its final status is on its way over the socket.
      this.state.update((s) => ({ ...s, error: `${item.file}: ${describeHttpError(err)}` }));
    }
  }

  private applyImportEvent(job: ImportJobView): void {
    const known = this.state().imports.some((i) => i.importId === job.id);
    if (!known) {
      // Another tab's imports land here too: keep only the latest few.
      this.early.set(job.id, job);
      if (this.early.size > 100) this.early.delete(this.early.keys().next().value!);
      return;
    }
    this.state.update((s) => ({
      ...s,
      imports: s.imports.map((i) => (i.importId === job.id && isRunning(i) ? itemOf(job) : i)),
    }));
    // A cancelled PDF keeps the findings extracted so far, and progress adds findings as it goes.
    if (job.status === 'ready' || job.extraction) void this.load();
  }

  clearImports(): void {
    this.state.update((s) => ({ ...s, imports: s.imports.filter(isRunning) }));
  }
}

/** A file the API did not take, with the reason. */
function refused(file: string, error: string): ImportItem {
  return { file, state: 'done', outcome: { ok: false, file, error, code: 'INVALID' } };
}
