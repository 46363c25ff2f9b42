import type { EntityManager } from 'typeorm';
import type { StoredUpload } from './import-jobs';

/**
 * Imports queued or running and bytes of queued uploads: what one operator may have waiting (a
 * quota), has waiting (a backlog) or is adding.
 */
export interface ImportQuota {
  imports: number;
  bytes: number;
}

/**
 * Thrown by `checkImportQuota` when the uploads would take the operator past `quota`; nothing is recorded.
 */
export class ImportQuotaExceeded extends Error {
  constructor(
    readonly backlog: ImportQuota,
    readonly adding: ImportQuota,
    readonly quota: ImportQuota,
  ) {
    super('import quota exceeded');
  }
}

/**
 * Within `tx`: locks the operator's row (concurrent uploads cannot both pass the count) and throws
 * `ImportQuotaExceeded` when `uploads` would take the operator's queued and running imports, or the
 * bytes of queued uploads, past `quota`.
 */
export async function checkImportQuota(
  tx: EntityManager,
  operatorId: string,
  uploads: StoredUpload[],
  quota: ImportQuota,
): Promise<void> {
  await tx.query(`SELECT 1 FROM operators WHERE id = $1 FOR UPDATE`, [operatorId]);
  const [row]: { imports: number; bytes: string }[] = await tx.query(
    `SELECT count(*)::int AS imports,
            coalesce(sum(size_bytes) FILTER (WHERE status = 'queued'), 0)::text AS bytes
     FROM import_jobs WHERE operator_id = $1 AND status IN ('queued', 'parsing')`,
    [operatorId],
  );
  const backlog = { imports: row.imports, bytes: Number(row.bytes) };
  const adding = { imports: uploads.length, bytes: uploads.reduce((n, u) => n + u.sizeBytes, 0) };
  if (backlog.imports + adding.imports > quota.imports || backlog.bytes + adding.bytes > quota.bytes)
    throw new ImportQuotaExceeded(backlog, adding, quota);
}
