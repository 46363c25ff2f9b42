import { DEFAULT_MAX_IMPORT_BYTES } from '@corpus-chat/corpus-queries';

/** Limits of `POST /api/reports/import`. */
export interface CorpusImportOptions {
  /** Largest file accepted, in bytes (default 50 MB); a larger one answers 413 before it is parsed. */
  maxImportBytes: number;
  /** Most files in one request (default 20). */
  maxFilesPerRequest: number;
}

export const CORPUS_IMPORT_OPTIONS = Symbol('CORPUS_IMPORT_OPTIONS');

export const DEFAULT_CORPUS_IMPORT_OPTIONS: CorpusImportOptions = {
  maxImportBytes: DEFAULT_MAX_IMPORT_BYTES,
  maxFilesPerRequest: 20,
};
