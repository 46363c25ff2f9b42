import type { EntityManager } from 'typeorm';
import {
  OPERATOR_NOTE_STAGES,
  VERDICT_STATUSES,
  type OperatorNoteStage,
  type VerdictStatus,
} from '@corpus-chat/contracts';
import { recordAuditEvent, type AuditActor, storableText } from '@corpus-chat/persistence';
import { QueryValidationError } from '../queries/query-validation';

/** `not_found` when no finding has the id. */
export type FindingWriteResult = { status: 'ok'; id: number } | { status: 'not_found'; id: number };

async function lockFinding(tx: EntityManager, id: number): Promise<boolean> {
  const rows: unknown[] = await tx.query(`SELECT 1 FROM findings WHERE id = $1 FOR UPDATE`, [id]);
  return rows.length > 0;
}

/**
 * Adds a stage-tagged note to a finding, audited in the same transaction; answers its id.
 *
 * @throws QueryValidationError for another stage or an empty body.
 */
export async function addFindingNote(
  manager: EntityManager,
  findingId: number,
  note: { stage: OperatorNoteStage; body: string },
  actor: AuditActor,
): Promise<FindingWriteResult> {
  if (!(OPERATOR_NOTE_STAGES as readonly unknown[]).includes(note.stage)) {
    throw new QueryValidationError('stage', `stage must be one of ${OPERATOR_NOTE_STAGES.join(', ')}`);
  }
  const body = storableText(note.body?.trim() ?? '');
  if (!body) throw new QueryValidationError('body', 'body must not be empty');
  return manager.transaction(async (tx): Promise<FindingWriteResult> => {
    if (!(await lockFinding(tx, findingId))) return { status: 'not_found', id: findingId };
    const [row]: { id: number }[] = await tx.query(
      `INSERT INTO finding_notes (finding_id, stage, body, author) VALUES ($1, $2, $3, $4) RETURNING id`,
      [findingId, note.stage, body, actor.username],
    );
    await recordAuditEvent(tx, {
      action: 'finding.note',
      actor,
      subjectType: 'finding',
      subjectId: findingId,
      after: { noteId: row.id, stage: note.stage, body },
    });
    return { status: 'ok', id: row.id };
  });
}

/** A retest an operator ran by hand. */
export interface RetestInput {
  tried: string;
  retestedAt: Date;
  verdict: VerdictStatus;
  rationale: string;
}

/**
 * Records an operator's retest and its verdict (a `retest_sessions` and a `verdicts` row), sets
 * `latest_verdict` and audits it. Answers the retest's id.
 *
 * @throws QueryValidationError for empty text, an unknown verdict or a bad/future `retestedAt`.
 */
export async function recordRetest(
  manager: EntityManager,
  findingId: number,
  input: RetestInput,
  actor: AuditActor,
): Promise<FindingWriteResult> {
  const tried = storableText(input.tried?.trim() ?? '');
  const rationale = storableText(input.rationale?.trim() ?? '');
  if (!tried) throw new QueryValidationError('tried', 'tried must say what was tried');
  if (!rationale) throw new QueryValidationError('rationale', 'rationale must say why the verdict follows');
  if (!(VERDICT_STATUSES as readonly unknown[]).includes(input.verdict)) {
    throw new QueryValidationError('verdict', `verdict must be one of ${VERDICT_STATUSES.join(', ')}`);
  }
  if (!(input.retestedAt instanceof Date) || Number.isNaN(input.retestedAt.getTime())) {
    throw new QueryValidationError('retestedAt', 'retestedAt must be a date and time');
  }
  return manager.transaction(async (tx): Promise<FindingWriteResult> => {
    // The database clock decides "future", as it stamps every other row.
    const [{ future }]: { future: boolean }[] = await tx.query(`SELECT $1::timestamptz > now() AS future`, [
      input.retestedAt,
    ]);
    if (future)
      throw new QueryValidationError(
        'retestedAt',
        'retestedAt is in the future; give when the retest was run',
      );
    const [before]: { latestVerdict: VerdictStatus | null }[] = await tx.query(
      `SELECT latest_verdict AS "latestVerdict" FROM findings WHERE id = $1 FOR UPDATE`,
      [findingId],
    );
    if (!before) return { status: 'not_found', id: findingId };
    const [session]: { id: number }[] = await tx.query(
      `INSERT INTO retest_sessions (finding_id, status, tried, retested_at, author, ended_at)
       VALUES ($1, 'done', $2, $3, $4, $3) RETURNING id`,
      [findingId, tried, input.retestedAt, actor.username],
    );
    await tx.query(
      `INSERT INTO verdicts (finding_id, session_id, status, rationale, actor, author) VALUES ($1, $2, $3, $4, 'operator', $5)`,
      [findingId, session.id, input.verdict, rationale, actor.username],
    );
    await tx.query(
      `UPDATE findings SET latest_verdict = (SELECT status FROM verdicts WHERE finding_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1)
       WHERE id = $1`,
      [findingId],
    );
    await recordAuditEvent(tx, {
      action: 'finding.retest',
      actor,
      subjectType: 'finding',
      subjectId: findingId,
      before: { latestVerdict: before.latestVerdict },
      after: {
        retestId: session.id,
        latestVerdict: input.verdict,
        tried,
        retestedAt: input.retestedAt.toISOString(),
        rationale,
      },
    });
    return { status: 'ok', id: session.id };
  });
}
