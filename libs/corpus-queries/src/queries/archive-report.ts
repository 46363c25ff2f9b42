import { QueryFailedError, type EntityManager } from 'typeorm';
import type { ReportSummary } from '@corpus-chat/contracts';
import { recordAuditEvent, type AuditActor } from '@corpus-chat/persistence';
import { reportSummaries } from './list-reports';
import { QueryValidationError } from './query-validation';

/** Outcome of {@link setReportArchived}. */
export type SetReportArchivedResult =
  | { status: 'ok'; report: ReportSummary }
  | { status: 'not_found'; id: number }
  /** Un-archiving would make two live reports with the same content; `existingReportId` is the live one. */
  | { status: 'conflict'; id: number; existingReportId: number; message: string };

/**
 * Archives or restores a report; a trigger copies the flag to its findings and bumps the corpus
 * version. With `actor`, a real change is audited in the same transaction.
 *
 * @throws QueryValidationError when `id` is not a positive integer or `archived` not a boolean.
 */
export async function setReportArchived(
  manager: EntityManager,
  id: number,
  archived: boolean,
  actor?: AuditActor,
): Promise<SetReportArchivedResult> {
  if (!Number.isSafeInteger(id) || id < 1)
    throw new QueryValidationError('id', `id must be a positive integer, got ${JSON.stringify(id)}`);
  if (typeof archived !== 'boolean')
    throw new QueryValidationError('archived', 'archived must be true or false');
  try {
    return await manager.transaction(async (tx): Promise<SetReportArchivedResult> => {
      const [current]: { archived: boolean }[] = await tx.query(
        `SELECT archived FROM reports WHERE id = $1 FOR UPDATE`,
        [id],
      );
      const changes = current !== undefined && current.archived !== archived;
      if (changes) await tx.query(`UPDATE reports SET archived = $2 WHERE id = $1`, [id, archived]);
      const [report] = await reportSummaries(tx, { includeArchived: true, ids: [id] });
      if (!report) return { status: 'not_found', id };
      if (actor && changes) {
        await recordAuditEvent(tx, {
          action: archived ? 'report.archive' : 'report.restore',
          actor,
          subjectType: 'report',
          subjectId: id,
          before: { archived: !archived },
          after: { archived, filename: report.filename },
        });
      }
      return { status: 'ok', report };
    });
  } catch (e) {
    const driverError =
      e instanceof QueryFailedError ? (e.driverError as { constraint?: string }) : undefined;
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

/** Outcome of {@link deleteReport}. */
export type DeleteReportResult =
  | { status: 'ok'; id: number }
  | { status: 'not_found'; id: number }
  /** Only an archived report may be deleted. */
  | { status: 'conflict'; id: number; message: string };

/**
 * Deletes an archived report with everything under it (cascades), audited as `report.delete`;
 * authorisation is the caller's.
 */
export async function deleteReport(
  manager: EntityManager,
  id: number,
  actor: AuditActor,
): Promise<DeleteReportResult> {
  return manager.transaction(async (tx): Promise<DeleteReportResult> => {
    const [report]: { filename: string; format: string; archived: boolean; findingCount: number }[] =
      await tx.query(
        `SELECT filename, format, archived, finding_count AS "findingCount" FROM reports WHERE id = $1 FOR UPDATE`,
        [id],
      );
    if (!report) return { status: 'not_found', id };
    if (!report.archived) {
      return {
        status: 'conflict',
        id,
        message: `report ${id} (${report.filename}) is not archived; archive it first, then delete it`,
      };
    }
    await tx.query(`DELETE FROM reports WHERE id = $1`, [id]);
    await recordAuditEvent(tx, {
      action: 'report.delete',
      actor,
      subjectType: 'report',
      subjectId: id,
      before: report,
    });
    return { status: 'ok', id };
  });
}
