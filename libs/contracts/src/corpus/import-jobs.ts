import type { ImportOutcome, ReportStatus } from './corpus.types';

/** An upload's lifecycle: `queued` → `parsing` → `ready`, or `failed`/`cancelled` with nothing written. */
export const IMPORT_JOB_STATUSES = ['queued', 'parsing', 'ready', 'failed', 'cancelled'] as const;
export type ImportJobStatus = (typeof IMPORT_JOB_STATUSES)[number];
export const isImportJobFinished = (status: ImportJobStatus): boolean =>
  status !== 'queued' && status !== 'parsing';

/** One import as `GET /api/imports/:id` and the `import:event` socket message show it. */
export interface ImportJobView {
  id: string;
  /** The uploaded file's base name. */
  file: string;
  sizeBytes: number;
  status: ImportJobStatus;
  /**
   * Set once the import ended `ready` or `failed`: the importer's outcome, with the same codes and
   * messages as `corpus:import` (a duplicate is `{ ok: false, code: 'DUPLICATE', existingReportId }`).
   */
  outcome: ImportOutcome | null;
  /** Why it failed or was cancelled (the outcome's `error` for a refusal); null otherwise. */
  error: string | null;
  /** A PDF's report while (and after) a model extracts its findings; null for other files. */
  extraction: ExtractionProgress | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * A PDF import's report and how far the model got: findings stored so far and chunks of text read
 * (`chunksTotal` 0 without a model: the report waits in `needs_review` for manual entry).
 */
export interface ExtractionProgress {
  reportId: number;
  reportStatus: ReportStatus;
  findingCount: number;
  chunksDone: number;
  chunksTotal: number;
  /** Chunks whose model output stayed invalid after one retry (their findings are missing). */
  chunksFailed: number;
  /** The model that extracts the findings; null without one. */
  model: string | null;
}

/** `POST /api/reports/import` (202): one queued import per file; follow them by `import:event`. */
export interface QueuedImportsResponse {
  imports: ImportJobView[];
}

/** Socket.IO event (server → client, namespace `/chat`, to the importing operator's sockets): an `ImportJobView` after each status change. */
export const IMPORT_SOCKET_EVENT = 'import:event';
