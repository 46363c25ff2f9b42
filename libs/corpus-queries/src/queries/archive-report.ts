import { QueryFailedError, type EntityManager } from 'typeorm';
import type { ReportSummary } from '@corpus-chat/contracts';
import { reportSummaries } from './list-reports';
import { QueryValidationError } from './query-validation';

/** Outcome of {@link setReportArchived}. */
export type SetReportArchivedResult =
  | { status: 'ok'; report: ReportSummary }
  | { status: 'not_found'; id: number }
  /** Un-archiving would make two live reports with the same content; `existingReportId` is the live one. */
  | { status: 'conflict'; id: number; existingReportId: number; message: string };

/**
 * Archives or restores a report. Its findings follow (a trigger copies the flag to
 * `findings.archived`) and the corpus version is bumped, so cached answers are recomputed.
 * Archived reports and their findings are excluded from every query by default.
 *
 * @throws QueryValidationError when `id` is not a positive integer or `archived` not a boolean.
 */
export async function setReportArchived(manager: EntityManager, id: number, archived: boolean): Promise<SetReportArchivedResult> {
  if (!Number.isSafeInteger(id) || id < 1) throw new QueryValidationError('id', `id must be a positive integer, got ${JSON.stringify(id)}`);
  if (typeof archived !== 'boolean') throw new QueryValidationError('archived', 'archived must be true or false');
  try {
    return await manager.transaction(async (tx): Promise<SetReportArchivedResult> => {
      await tx.query(`UPDATE reports SET archived = $2 WHERE id = $1 AND archived IS DISTINCT FROM $2`, [id, archived]);
      const [report] = await reportSummaries(tx, { includeArchived: true, ids: [id] });
      if (!report) return { status: 'not_found', id };
      return { status: 'ok', report };
    });
  } catch (e) {
    const driverError = e instanceof QueryFailedError ? (e.driverError as { constraint?: string }) : undefined;
    if (driverError?.constraint !== 'uq_reports_content_hash_live') throw e;
    const [live]: { id: number; filename: string }[] = await manager.query(
      `SELECT l.id, l.filename FROM reports r JOIN reports l ON l.content_hash = r.content_hash AND NOT l.archived WHERE r.id = $1`,
      [id],
    );
    return {
      status: 'conflict',
      id,
      existingReportId: live?.id ?? 0,
      message: `report ${id} has the same content as report ${live?.id} (${live?.filename}), which is not archived; archive that one first`,
    };
  }
}
