import type { DataSource, EntityManager } from 'typeorm';
import type {
  FeedbackEntryView,
  FeedbackPage,
  FeedbackRating,
  TurnFeedbackView,
} from '@corpus-chat/contracts';
import { type AuditActor, recordAuditEvent } from '../audit/audit-log';
import { storableText } from './storable';

/** What `saveTurnFeedback` stores. */
export interface TurnFeedbackInput {
  rating: FeedbackRating;
  /** Blank or null: no comment. */
  comment?: string | null;
}

/** How `saveTurnFeedback` ended; only `saved` wrote anything. */
export type SaveFeedbackOutcome =
  | { kind: 'saved'; feedback: TurnFeedbackView }
  /** The turn is missing, not in this thread, or the thread is not the operator's. */
  | { kind: 'not-found' }
  /** The turn has no stored answer yet (queued or running). */
  | { kind: 'no-answer' };

interface FeedbackRow {
  turnId: string;
  rating: FeedbackRating;
  comment: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const toView = (r: FeedbackRow): TurnFeedbackView => ({
  turnId: r.turnId,
  rating: r.rating,
  comment: r.comment,
  createdAt: new Date(r.createdAt).toISOString(),
  updatedAt: new Date(r.updatedAt).toISOString(),
});

/**
 * Stores (or replaces) the operator's feedback on a turn of their own thread, with its audit event
 * in the same transaction. The turn must have a stored answer.
 */
export async function saveTurnFeedback(
  db: DataSource,
  actor: AuditActor,
  chatId: string,
  turnId: string,
  input: TurnFeedbackInput,
): Promise<SaveFeedbackOutcome> {
  const comment = input.comment?.trim() ? storableText(input.comment.trim()) : null;
  return db.transaction(async (tx) => {
    const turns: { answered: boolean }[] = await tx.query(
      `SELECT EXISTS (SELECT 1 FROM chat_messages m WHERE m.turn_id = t.id AND m.role = 'assistant') AS answered
       FROM chat_turns t JOIN chat_sessions s ON s.id = t.chat_id
       WHERE t.id = $1 AND t.chat_id = $2 AND s.owner_id = $3
       FOR SHARE OF t`,
      [turnId, chatId, actor.id],
    );
    if (!turns.length) return { kind: 'not-found' } as const;
    if (!turns[0].answered) return { kind: 'no-answer' } as const;
    const before: { rating: FeedbackRating; comment: string | null }[] = await tx.query(
      `SELECT rating, comment FROM turn_feedback WHERE turn_id = $1 AND operator_id = $2 FOR UPDATE`,
      [turnId, actor.id],
    );
    const [row]: FeedbackRow[] = await tx.query(
      `INSERT INTO turn_feedback (turn_id, operator_id, rating, comment) VALUES ($1, $2, $3, $4)
       ON CONFLICT (turn_id, operator_id) DO UPDATE SET rating = EXCLUDED.rating, comment = EXCLUDED.comment, updated_at = now()
       RETURNING turn_id AS "turnId", rating, comment, created_at AS "createdAt", updated_at AS "updatedAt"`,
      [turnId, actor.id, input.rating, comment],
    );
    await recordAuditEvent(tx, {
      action: 'turn.feedback',
      actor,
      subjectType: 'turn',
      subjectId: turnId,
      before: before[0] ? { rating: before[0].rating, comment: before[0].comment } : null,
      after: { chatId, rating: row.rating, comment: row.comment },
    });
    return { kind: 'saved', feedback: toView(row) } as const;
  });
}

/** The operator's feedback on the given turns, by turn id. */
export async function feedbackOfTurns(
  manager: EntityManager,
  operatorId: string,
  turnIds: readonly string[],
): Promise<Map<string, TurnFeedbackView>> {
  if (!turnIds.length) return new Map();
  const rows: FeedbackRow[] = await manager.query(
    `SELECT turn_id AS "turnId", rating, comment, created_at AS "createdAt", updated_at AS "updatedAt"
     FROM turn_feedback WHERE operator_id = $1 AND turn_id = ANY($2::uuid[])`,
    [operatorId, [...turnIds]],
  );
  return new Map(rows.map((r) => [r.turnId, toView(r)]));
}

/** Filter of {@link listFeedback}; all fields ANDed. */
export interface FeedbackFilter {
  rating?: FeedbackRating;
  operatorId?: string;
  /** Given or changed at or after (ISO 8601). */
  from?: string;
  /** Given or changed before (ISO 8601). */
  to?: string;
  /** 1–200, default 50. */
  limit?: number;
  offset?: number;
}

/** Every operator's feedback matching `filter`, most recently changed first (admins' view). */
export async function listFeedback(
  manager: EntityManager,
  filter: FeedbackFilter = {},
): Promise<FeedbackPage> {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  const offset = Math.max(filter.offset ?? 0, 0);
  const params: unknown[] = [];
  const where: string[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.rating) add('f.rating = ?', filter.rating);
  if (filter.operatorId) add('f.operator_id = ?::uuid', filter.operatorId);
  if (filter.from) add('f.updated_at >= ?::timestamptz', filter.from);
  if (filter.to) add('f.updated_at < ?::timestamptz', filter.to);
  const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const [{ total }]: { total: string }[] = await manager.query(
    `SELECT count(*) AS total FROM turn_feedback f ${whereSql}`,
    params,
  );
  const rows: (FeedbackRow & Omit<FeedbackEntryView, keyof TurnFeedbackView>)[] = await manager.query(
    `SELECT f.turn_id AS "turnId", f.rating, f.comment, f.created_at AS "createdAt", f.updated_at AS "updatedAt",
            t.chat_id AS "chatId", s.title AS "chatTitle", f.operator_id AS "operatorId", o.username AS "operatorName",
            coalesce(left(q.content, 300), '') AS question
     FROM turn_feedback f
     JOIN chat_turns t ON t.id = f.turn_id
     JOIN chat_sessions s ON s.id = t.chat_id
     JOIN operators o ON o.id = f.operator_id
     LEFT JOIN chat_messages q ON q.turn_id = f.turn_id AND q.role = 'user'
     ${whereSql}
     ORDER BY f.updated_at DESC, f.turn_id
     LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, limit, offset],
  );
  return {
    entries: rows.map((r) => ({
      ...toView(r),
      chatId: r.chatId,
      chatTitle: r.chatTitle,
      operatorId: r.operatorId,
      operatorName: r.operatorName,
      question: r.question,
    })),
    total: Number(total),
    limit,
    offset,
  };
}
