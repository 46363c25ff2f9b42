import { DEFAULT_MAX_IMPORT_BYTES } from '@corpus-chat/ingest';

/** Limits of `POST /api/reports/import`. */
export interface CorpusImportOptions {
  /** Largest file accepted, in bytes (default 50 MB); a larger one answers 413 before it is parsed. */
  maxImportBytes: number;
  /** Most files in one request (default 20). */
  maxFilesPerRequest: number;
  /** Most imports one operator may have queued or running (default 100). */
  maxQueuedImports: number;
  /** Most bytes of one operator's queued uploads (default 1 GB). */
  maxQueuedBytes: number;
  /**
   * Absolute folder of this API's own disk (`${DATA_DIR}/uploads`) where an upload streams while
   * it arrives; once recorded, its bytes wait for the worker in Postgres and the file is removed.
   */
  uploadDir: string;
}

export const CORPUS_IMPORT_OPTIONS = Symbol('CORPUS_IMPORT_OPTIONS');

export const DEFAULT_CORPUS_IMPORT_OPTIONS: Omit<CorpusImportOptions, 'uploadDir'> = {
  maxImportBytes: DEFAULT_MAX_IMPORT_BYTES,
  maxFilesPerRequest: 20,
  maxQueuedImports: 100,
  maxQueuedBytes: 1024 * 1024 * 1024,
};
