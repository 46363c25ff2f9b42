import type { ImportJobStatus, ImportJobView } from '../corpus/import-jobs';

/**
 * A file the operator dropped on a thread's composer: imported through the same `imports` job as
 * an upload on the Reports page; questions about "this file" are scoped to the report it became.
 */
export interface ChatAttachmentView {
  id: string;
  chatId: string;
  createdAt: string;
  /** The import of the file, as `GET /api/imports/:id` and `import:event` show it. */
  import: ImportJobView;
}

/**
 * The thread's attachment as a turn sees it: the latest one attached before the question was
 * posted. `reportId` is the report it became (or the report it duplicates), once the import ended.
 */
export interface TurnAttachment {
  file: string;
  status: ImportJobStatus;
  reportId: number | null;
  /** Why the import failed or was cancelled (null otherwise). */
  error: string | null;
  /** True when the file had already been imported: `reportId` is that earlier report. */
  duplicate: boolean;
}
