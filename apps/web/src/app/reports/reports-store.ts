import { Injectable, computed, inject, signal } from '@angular/core';
import type { CorpusOverview, ImportOutcome, ReportSummary } from '@corpus-chat/contracts';
import { describeHttpError } from '../http/api-error';
import { ReportsApi } from './reports-api';

/** One file of an import batch: waiting, uploading, or its outcome. */
export interface ImportItem {
  file: string;
  state: 'uploading' | 'done';
  outcome?: ImportOutcome;
}

interface ReportsState {
  reports: ReportSummary[];
  overview: CorpusOverview | null;
  loading: boolean;
  error: string | null;
  imports: ImportItem[];
}

/** Formats the importer accepts, for the file picker's `accept`. */
export const IMPORT_ACCEPT = '.json,.jsonl,.sarif,.xml,application/json,application/sarif+json,text/xml';

/** The report list with the corpus totals, and file imports with a result per file. */
@Injectable()
export class ReportsStore {
  private readonly api = inject(ReportsApi);
  private readonly state = signal<ReportsState>({ reports: [], overview: null, loading: false, error: null, imports: [] });

  readonly reports = computed(() => [...this.state().reports].sort((a, b) => b.createdAt.localeCompare(a.createdAt)));
  readonly overview = computed(() => this.state().overview);
  readonly loading = computed(() => this.state().loading);
  readonly error = computed(() => this.state().error);
  readonly imports = computed(() => this.state().imports);
  readonly importing = computed(() => this.state().imports.some((i) => i.state === 'uploading'));

  async load(): Promise<void> {
    this.state.update((s) => ({ ...s, loading: true, error: null }));
    try {
      const [reports, overview] = await Promise.all([this.api.listReports(), this.api.overview().catch(() => null)]);
      this.state.update((s) => ({ ...s, reports, overview, loading: false }));
    } catch (err) {
      this.state.update((s) => ({ ...s, loading: false, error: describeHttpError(err) }));
    }
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
