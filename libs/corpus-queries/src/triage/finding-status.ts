import type { EntityManager } from 'typeorm';
import {
  TRIAGE_STATUSES,
  TRIAGE_STATUSES_NEEDING_REASON,
  TRIAGE_TRANSITIONS,
  type TriageStatus,
} from '@corpus-chat/contracts';
import { recordAuditEvents, type AuditActor, storableText } from '@corpus-chat/persistence';
import { QueryValidationError } from '../queries/query-validation';

/** A status change for one or more findings. */
export interface SetFindingStatusInput {
  ids: number[];
  status: TriageStatus;
  reason?: string | null;
  actor: AuditActor;
}

/** Outcome of {@link setFindingStatus}: all findings changed, or none. */
export type SetFindingStatusResult =
  | { status: 'ok'; changed: number[] }
  | { status: 'not_found'; ids: number[] }
  /** A transition the workflow does not allow (`TRIAGE_TRANSITIONS`), or the status a finding already has. */
  | { status: 'conflict'; ids: number[]; message: string };

const label = (s: TriageStatus) => s.replace('_', ' ');

/**
 * Sets the triage status of findings `ids`, all or none: rows locked first (concurrent changes
 * serialise), one status change and one audit event per finding.
 *
 * @throws QueryValidationError for an unknown status, no ids, or a missing required reason.
 */
export async function setFindingStatus(
  manager: EntityManager,
  input: SetFindingStatusInput,
): Promise<SetFindingStatusResult> {
  const { status, actor } = input;
  if (!(TRIAGE_STATUSES as readonly unknown[]).includes(status)) {
    throw new QueryValidationError('status', `status must be one of ${TRIAGE_STATUSES.join(', ')}`);
  }
  const ids = [...new Set(input.ids)].sort((a, b) => a - b);
  if (ids.length === 0 || ids.some((id) => !Number.isSafeInteger(id) || id < 1)) {
    throw new QueryValidationError('ids', 'ids must be one or more finding ids (positive integers)');
  }
  const reason = storableText(input.reason?.trim() ?? '') || null;
  if (!reason && TRIAGE_STATUSES_NEEDING_REASON.includes(status)) {
    throw new QueryValidationError(
      'reason',
      status === 'open'
        ? 'reopening a finding needs a reason'
        : `marking a finding ${label(status)} needs a reason`,
    );
  }
  return manager.transaction(async (tx): Promise<SetFindingStatusResult> => {
    const rows: { id: number; status: TriageStatus }[] = await tx.query(
      `SELECT id, status FROM findings WHERE id = ANY($1::int[]) ORDER BY id FOR UPDATE`,
      [ids],
    );
    const found = new Set(rows.map((r) => r.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length) return { status: 'not_found', ids: missing };
    const refused = rows.filter((r) => !TRIAGE_TRANSITIONS[r.status].includes(status));
    if (refused.length) {
      const r = refused[0];
      const why =
        r.status === status
          ? `finding ${r.id} is already ${label(status)}`
          : `finding ${r.id} is ${label(r.status)}; it can only become ${TRIAGE_TRANSITIONS[r.status].map(label).join(' or ')}`;
      const more =
        refused.length > 1 ? ` (and ${refused.length - 1} more finding(s) cannot change either)` : '';
      return {
        status: 'conflict',
        ids: refused.map((x) => x.id),
        message: `${why}${more}; nothing was changed`,
      };
    }
    await tx.query(`UPDATE findings SET status = $2 WHERE id = ANY($1::int[])`, [ids, status]);
    await tx.query(
      `INSERT INTO finding_status_changes (finding_id, from_status, to_status, reason, actor_id, actor_name)
       SELECT id, from_status, $2, $3, $4, $5 FROM unnest($1::int[], $6::text[]) AS x(id, from_status)`,
      [rows.map((r) => r.id), status, reason, actor.id, actor.username, rows.map((r) => r.status)],
    );
    await recordAuditEvents(
      tx,
      rows.map((r) => ({
        action: 'finding.status' as const,
        actor,
        subjectType: 'finding' as const,
        subjectId: r.id,
        before: { status: r.status },
        after: { status, reason },
      })),
    );
    return { status: 'ok', changed: ids };
  });
}
