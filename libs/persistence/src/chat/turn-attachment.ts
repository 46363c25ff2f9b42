import type { EntityManager } from 'typeorm';
import type { TurnAttachment } from '@corpus-chat/contracts';

/**
 * The attachment turn `turnId` is about: the latest one attached to its thread before its question
 * was posted (a file attached later belongs to later questions), or null.
 */
export async function findTurnAttachment(
  manager: EntityManager,
  turnId: string,
): Promise<TurnAttachment | null> {
  const rows: {
    filename: string;
    status: TurnAttachment['status'];
    outcome: Record<string, unknown> | null;
    error: string | null;
  }[] = await manager.query(
    `SELECT j.filename, j.status, j.outcome, j.error
       FROM chat_messages u
       JOIN chat_attachments a ON a.chat_id = u.chat_id AND a.created_at <= u.created_at
       JOIN import_jobs j ON j.id = a.import_id
      WHERE u.turn_id = $1 AND u.role = 'user'
      ORDER BY a.created_at DESC, a.id DESC
      LIMIT 1`,
    [turnId],
  );
  const r = rows[0];
  if (!r) return null;
  const outcome = r.outcome;
  const reportId =
    outcome?.['ok'] === true
      ? Number(outcome['reportId'])
      : outcome?.['code'] === 'DUPLICATE' && outcome['existingReportId']
        ? Number(outcome['existingReportId'])
        : null;
  const duplicate = outcome?.['ok'] === false && reportId !== null;
  // A duplicate's report is there to ask about: the attachment is as good as imported.
  return {
    file: r.filename,
    status: duplicate ? 'ready' : r.status,
    reportId,
    error: duplicate ? null : r.error,
    duplicate,
  };
}
