import type { DataSource, EntityManager } from 'typeorm';
import type { AuditActor } from '@corpus-chat/persistence';
import type {
  ExtractionProgress,
  ImportJobStatus,
  ImportJobView,
  ImportOutcome,
} from '@corpus-chat/contracts';
import { isPdf } from '../pdf-reports/pdf-text';
import { runPdfImportJob, type PdfImportOptions } from '../pdf-reports/pdf-import';
import { importFileName, type ImportOptions, storeParsedReport } from './import-report';
import { parseForImport } from './parse-report';
import { ParseCancelled, parseInThread } from './parse-thread';
import type { InsertPacing } from './persist-report';
import { readUpload, removeUpload, storeUpload, UploadMissingError } from './upload-store';
import { checkImportQuota, type ImportQuota } from './import-quota';

/** @internal An `import_jobs` row as selected with `IMPORT_JOB_COLUMNS`. */
export interface ImportJobRow {
  id: string;
  operator_id: string;
  filename: string;
  size_bytes: string;
  status: ImportJobStatus;
  outcome: ImportOutcome | null;
  error: string | null;
  report_id: number | null;
  extraction: ExtractionProgress | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, operator_id, filename, size_bytes, status, outcome, error, report_id, extraction, created_at, updated_at`;
/** @internal */
export const IMPORT_JOB_COLUMNS = COLUMNS;

/** An import job as stored, with who started it. */
export interface ImportJobRecord extends ImportJobView {
  operatorId: string;
  /** The report a PDF import created (kept so a retried job resumes it); null otherwise. */
  reportId: number | null;
}

/** @internal */
export function toRecord(row: ImportJobRow): ImportJobRecord {
  return {
    id: row.id,
    operatorId: row.operator_id,
    reportId: row.report_id,
    extraction: row.extraction,
    file: row.filename,
    sizeBytes: Number(row.size_bytes),
    status: row.status,
    outcome: row.outcome,
    error: row.error,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The part of a record that crosses the wire (no operator id). */
export function importJobView(record: ImportJobRecord): ImportJobView {
  const { operatorId: _operatorId, reportId: _reportId, ...view } = record;
  return view;
}

/** An upload on the receiving process's disk; recording the import copies it into Postgres. */
export interface StoredUpload {
  filename: string;
  uploadPath: string;
  sizeBytes: number;
}

/**
 * Records one `queued` import per upload of `operatorId` with the file's bytes, in one
 * transaction, in upload order.
 * With `quota`, `checkImportQuota` runs first.
 */
export async function createImportJobs(
  dataSource: DataSource,
  operatorId: string,
  uploads: StoredUpload[],
  quota?: ImportQuota,
): Promise<ImportJobRecord[]> {
  return dataSource.transaction(async (tx) => {
    if (quota) await checkImportQuota(tx, operatorId, uploads, quota);
    const records: ImportJobRecord[] = [];
    for (const upload of uploads) records.push(await insertImportJob(tx, operatorId, upload));
    return records;
  });
}

/** Records one `queued` import of `operatorId` within the caller's transaction `tx`. */
export async function insertImportJob(
  tx: EntityManager,
  operatorId: string,
  upload: StoredUpload,
): Promise<ImportJobRecord> {
  const [row]: ImportJobRow[] = await tx.query(
    `INSERT INTO import_jobs (operator_id, filename, size_bytes) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
    [operatorId, importFileName(upload.filename), upload.sizeBytes],
  );
  await storeUpload(tx, row.id, upload.uploadPath);
  return toRecord(row);
}

/** The imports `ids` of `operatorId` (others' and unknown ids are left out), by id. */
export async function findImportJobs(
  manager: EntityManager,
  operatorId: string,
  ids: string[],
): Promise<Map<string, ImportJobRecord>> {
  if (!ids.length) return new Map();
  const rows: ImportJobRow[] = await manager.query(
    `SELECT ${COLUMNS} FROM import_jobs WHERE id = ANY($1::uuid[]) AND operator_id = $2`,
    [ids, operatorId],
  );
  return new Map(rows.map((r) => [r.id, toRecord(r)]));
}

/** The import `id` if `operatorId` started it (imports are scoped to their operator), else null. */
export async function findImportJob(
  manager: EntityManager,
  operatorId: string,
  id: string,
): Promise<ImportJobRecord | null> {
  const rows: ImportJobRow[] = await manager.query(
    `SELECT ${COLUMNS} FROM import_jobs WHERE id = $1 AND operator_id = $2`,
    [id, operatorId],
  );
  return rows[0] ? toRecord(rows[0]) : null;
}

/** The operator's most recent imports, newest first (at most `limit`). */
export async function listImportJobs(
  manager: EntityManager,
  operatorId: string,
  limit = 50,
): Promise<ImportJobRecord[]> {
  const rows: ImportJobRow[] = await manager.query(
    `SELECT ${COLUMNS} FROM import_jobs WHERE operator_id = $1 ORDER BY created_at DESC, id LIMIT $2`,
    [operatorId, limit],
  );
  return rows.map(toRecord);
}

export type CancelImportResult =
  | { status: 'cancelled'; job: ImportJobRecord }
  /** Its worker is storing it: the cancel is recorded, the store stops at its next statement. */
  | { status: 'cancelling'; job: ImportJobRecord }
  | { status: 'not_found' }
  | { status: 'finished'; job: ImportJobRecord };

/**
 * Cancels a `queued` or `parsing` import without waiting for a lock: the worker re-checks the status
 * under the row lock before writing, and a store in progress sees `import_cancel_requests` at its
 * next statement and rolls back. An ended import is `finished` (archive its report instead).
 */
export async function cancelImportJob(
  dataSource: DataSource,
  operatorId: string,
  id: string,
): Promise<CancelImportResult> {
  const [rows]: [ImportJobRow[], number] = await dataSource.query(
    `WITH target AS (
       SELECT id FROM import_jobs
        WHERE id = $1 AND operator_id = $2 AND status IN ('queued', 'parsing')
        FOR NO KEY UPDATE SKIP LOCKED
     )
     UPDATE import_jobs j SET status = 'cancelled', error = 'cancelled by the operator', updated_at = now()
       FROM target WHERE j.id = target.id RETURNING ${COLUMNS.replace(/(^|, )/g, '$1j.')}`,
    [id, operatorId],
  );
  if (rows[0]) {
    // A parse under way already holds the bytes; a queued import's worker finds it cancelled.
    await removeUpload(dataSource.manager, id);
    return { status: 'cancelled', job: toRecord(rows[0]) };
  }
  const job = await findImportJob(dataSource.manager, operatorId, id);
  if (!job) return { status: 'not_found' };
  if (job.status !== 'queued' && job.status !== 'parsing') return { status: 'finished', job };
  // Locked by the worker storing it. The foreign key's check takes only a key-share lock, which
  // the worker's FOR NO KEY UPDATE allows.
  await dataSource.query(
    `INSERT INTO import_cancel_requests (import_id) VALUES ($1) ON CONFLICT (import_id) DO NOTHING`,
    [id],
  );
  return { status: 'cancelling', job };
}

/** Thrown by the store's checkpoint when a cancel was requested meanwhile. */
class ImportCancelRequested extends Error {}

/**
 * Throws `ImportCancelRequested` when a cancel of import `id` was recorded (read on `manager`'s
 * connection).
 */
async function stopIfCancelRequested(manager: EntityManager, id: string): Promise<void> {
  const rows: unknown[] = await manager.query(`SELECT 1 FROM import_cancel_requests WHERE import_id = $1`, [
    id,
  ]);
  if (rows.length) throw new ImportCancelRequested(`import ${id} cancelled while stored`);
}

/** @internal Ends import `id` `ready` or `failed` with `outcome`. */
export async function finish(
  manager: EntityManager,
  id: string,
  outcome: ImportOutcome,
): Promise<ImportJobRecord> {
  const [rows]: [ImportJobRow[], number] = await manager.query(
    `UPDATE import_jobs SET status = $2, outcome = $3::jsonb, error = $4, updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, outcome.ok ? 'ready' : 'failed', JSON.stringify(outcome), outcome.ok ? null : outcome.error],
  );
  await manager.query(`DELETE FROM import_cancel_requests WHERE import_id = $1`, [id]);
  return toRecord(rows[0]);
}

/**
 * Runs import `id` as the ingest worker does: marks it `parsing`, parses its file in a worker
 * thread outside any transaction, then locks the row and, unless cancelled, stores the report and
 * ends `ready` (or `failed` with the refusal). Null when there was nothing to do (unknown or
 * ended). Database failures and an unreadable upload are thrown, so the job's retries apply.
 */
export async function runImportJob(
  dataSource: DataSource,
  id: string,
  options: ImportOptions &
    PdfImportOptions & {
      onParsing?: (job: ImportJobRecord) => Promise<void>;
      /** Called once the store holds the import row's lock, before it writes. */
      onStoring?: () => Promise<void>;
      /** False on a worker that takes no chat turns: nothing to leave room for, so store at full speed. */
      paced?: boolean;
    } = {},
): Promise<ImportJobRecord | null> {
  const [started]: [ImportJobRow[], number] = await dataSource.query(
    `UPDATE import_jobs SET status = 'parsing', updated_at = now() WHERE id = $1 AND status IN ('queued', 'parsing') RETURNING ${COLUMNS}`,
    [id],
  );
  if (!started[0]) {
    const row = await loadImportJob(dataSource.manager, id);
    if (row?.status === 'cancelled') await removeUpload(dataSource.manager, id);
    return null;
  }
  const job = toRecord(started[0]);
  await options.onParsing?.(job);
  let bytes: Buffer;
  try {
    bytes = await readUpload(dataSource.manager, job.id, job.sizeBytes);
  } catch (e) {
    // A cancel deletes the upload at once; then the cancelled import is the answer.
    const row = await loadImportJob(dataSource.manager, id);
    if (e instanceof UploadMissingError && row?.status === 'cancelled') return toRecord(row);
    throw e;
  }
  if (isPdf(bytes)) {
    const ended = await runPdfImportJob(dataSource, job, bytes, options);
    await removeUpload(dataSource.manager, id);
    return ended;
  }
  const parsed =
    bytes.byteLength <= IN_PROCESS_MAX_BYTES
      ? await parseForImport(job.file, bytes, options)
      : await runWatchingForCancel(dataSource, id, (signal) =>
          parseInThread(job.file, bytes, options, signal),
        );
  if (!parsed) {
    await removeUpload(dataSource.manager, id);
    const row = await loadImportJob(dataSource.manager, id);
    return toRecord(row);
  }
  const pacing: InsertPacing = {
    share: options.paced === false ? 1 : STORE_SHARE,
    checkpoint: (manager) => stopIfCancelRequested(manager, id),
  };
  const ended = await dataSource
    .transaction(async (tx) => {
      // NO KEY UPDATE: a cancel request's foreign key check (key share) does not wait for it.
      const row = await loadImportJob(tx, id, 'FOR NO KEY UPDATE');
      if (row.status !== 'parsing') return toRecord(row);
      await options.onStoring?.();
      await stopIfCancelRequested(tx, id);
      const actor = await importActor(tx, row.operator_id);
      const outcome = 'ok' in parsed ? parsed : await storeParsedReport(tx, job.file, parsed, actor, pacing);
      return finish(tx, id, outcome);
    })
    .catch(async (e: unknown) => {
      if (!(e instanceof ImportCancelRequested)) throw e;
      // Rolled back: nothing of the report was written.
      const [[row]]: [ImportJobRow[], number] = await dataSource.query(
        `UPDATE import_jobs SET status = 'cancelled', error = 'cancelled by the operator', updated_at = now()
          WHERE id = $1 RETURNING ${COLUMNS}`,
        [id],
      );
      await dataSource.query(`DELETE FROM import_cancel_requests WHERE import_id = $1`, [id]);
      return toRecord(row);
    });
  await removeUpload(dataSource.manager, id);
  return ended;
}

/**
 * A background store takes at most half the wall time (unless `paced: false`), leaving the worker
 * and Postgres to chat turns (bench scenario 7, docs/benchmarks.md).
 */
const STORE_SHARE = 0.5;

/** How often a running parse or PDF read checks whether its import was cancelled. */
const CANCEL_CHECK_MS = 1000;

/**
 * Files up to this size are parsed on the event loop: starting the first parse thread costs more
 * (seconds when sources compile on load) than parsing them.
 */
const IN_PROCESS_MAX_BYTES = 262_144;

/**
 * @internal Runs `read` (a worker thread) with a signal aborted when import `id` is cancelled
 * meanwhile: then resolves null.
 */
export async function runWatchingForCancel<T>(
  dataSource: DataSource,
  id: string,
  read: (signal: AbortSignal) => Promise<T>,
): Promise<T | null> {
  const cancel = new AbortController();
  const check = setInterval(() => {
    dataSource.query(`SELECT status FROM import_jobs WHERE id = $1`, [id]).then(
      (rows: { status: ImportJobStatus }[]) => rows[0]?.status === 'cancelled' && cancel.abort(),
      // A failed check is not a cancel: the next one, or the locked re-check before writing, decides.
      () => undefined,
    );
  }, CANCEL_CHECK_MS);
  try {
    return await read(cancel.signal);
  } catch (e) {
    if (e instanceof ParseCancelled) return null;
    throw e;
  } finally {
    clearInterval(check);
  }
}

/** @internal The import `id` as stored now; with `lock`, locked until `manager`'s transaction ends. */
export async function loadImportJob(
  manager: EntityManager,
  id: string,
  lock: '' | 'FOR UPDATE' | 'FOR NO KEY UPDATE' = '',
): Promise<ImportJobRow> {
  const [row]: ImportJobRow[] = await manager.query(
    `SELECT ${COLUMNS} FROM import_jobs WHERE id = $1 ${lock}`,
    [id],
  );
  return row;
}

/** @internal Who started an import, as the audit log names them (none once the operator is deleted). */
export async function importActor(tx: EntityManager, operatorId: string): Promise<AuditActor | undefined> {
  const [operator]: { username: string }[] = await tx.query(`SELECT username FROM operators WHERE id = $1`, [
    operatorId,
  ]);
  return operator ? { id: operatorId, username: operator.username } : undefined;
}

/** Queued or parsing imports unchanged for `minAgeMs` or more, oldest first (at most `limit`): what the API's sweep checks. */
export async function staleImportJobs(
  manager: EntityManager,
  minAgeMs: number,
  limit = 100,
): Promise<ImportJobRecord[]> {
  const rows: ImportJobRow[] = await manager.query(
    `SELECT ${COLUMNS} FROM import_jobs
      WHERE status IN ('queued', 'parsing') AND updated_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY updated_at, id LIMIT $2`,
    [minAgeMs, limit],
  );
  return rows.map(toRecord);
}

/** Why an import ended when its job vanished from the queue (Redis flushed or restored from an old copy). */
export const IMPORT_JOB_LOST_REASON =
  'this import was lost from the queue before it finished; nothing was imported. Import the file again';

/** Why an import ended when the worker parsing it died (killed, out of memory) before it finished. */
export const IMPORT_WORKER_LOST_REASON =
  'the worker parsing this file stopped before it finished (killed, or out of memory); nothing was imported. Import the file again, or split it if it is very large';

/**
 * Ends an import whose last attempt threw (database down, upload lost): `failed` with `reason`,
 * unless it already ended. Resolves with the ended import, or null when it had already ended.
 */
export async function failImportJob(
  dataSource: DataSource,
  id: string,
  reason: string,
): Promise<ImportJobRecord | null> {
  const [rows]: [ImportJobRow[], number] = await dataSource.query(
    `UPDATE import_jobs SET status = 'failed', error = $2, updated_at = now() WHERE id = $1 AND status IN ('queued', 'parsing') RETURNING ${COLUMNS}`,
    [id, reason],
  );
  if (!rows[0]) return null;
  // A PDF whose extraction was under way keeps what was extracted; its report ends failed too.
  if (rows[0].report_id !== null) {
    await dataSource.query(
      `UPDATE reports SET status = 'failed', error = $2 WHERE id = $1 AND status = 'extracting'`,
      [rows[0].report_id, reason],
    );
  }
  await removeUpload(dataSource.manager, id);
  return toRecord(rows[0]);
}
