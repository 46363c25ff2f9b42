import type { DataSource, EntityManager } from 'typeorm';
import { OperatorEntity } from './operator.entity';
import { OperatorSessionEntity } from './operator-session.entity';

/** What a sign-in records of the browser that signed in. */
export interface NewOperatorSession {
  operatorId: string;
  userAgent: string;
  ip: string;
}

/**
 * How long a session's `last_seen_at` may lag behind its requests: one write a minute, not one per request.
 */
export const SESSION_SEEN_EVERY_MS = 60_000;

/** Stores a new session of `s.operatorId`; returns its id (the cookie's `sid`). */
export async function insertOperatorSession(
  db: DataSource | EntityManager,
  s: NewOperatorSession,
): Promise<string> {
  const repo = db.getRepository(OperatorSessionEntity);
  const saved = await repo.save(
    repo.create({ operatorId: s.operatorId, userAgent: s.userAgent.slice(0, 500), ip: s.ip.slice(0, 64) }),
  );
  return saved.id;
}

/**
 * Session `sid` with its operator, in one statement (a request's only lookup), or null when the
 * session has ended (its row is gone) or belongs to another operator than `operatorId`.
 */
export async function findSessionWithOperator(
  db: DataSource | EntityManager,
  operatorId: string,
  sid: string,
): Promise<{ operator: OperatorEntity; lastSeenAt: Date } | null> {
  const { entities, raw } = await db
    .getRepository(OperatorEntity)
    .createQueryBuilder('o')
    .innerJoin(OperatorSessionEntity, 's', 's.operator_id = o.id AND s.id = :sid', { sid })
    .addSelect('s.last_seen_at', 'session_last_seen_at')
    .where('o.id = :operatorId', { operatorId })
    .getRawAndEntities<{ session_last_seen_at: Date }>();
  const operator = entities[0];
  return operator ? { operator, lastSeenAt: new Date(raw[0].session_last_seen_at) } : null;
}

/** Records a request of session `sid` from `ip` (a no-op when it was recorded less than a minute ago). */
export async function touchOperatorSession(
  db: DataSource | EntityManager,
  sid: string,
  ip: string,
): Promise<void> {
  await db.query(
    `UPDATE operator_sessions SET last_seen_at = now(), ip = $2
     WHERE id = $1 AND last_seen_at < now() - make_interval(secs => $3)`,
    [sid, ip.slice(0, 64), SESSION_SEEN_EVERY_MS / 1000],
  );
}

/** The live sessions of `operatorId`, most recently seen first. */
export function listOperatorSessions(
  db: DataSource | EntityManager,
  operatorId: string,
): Promise<OperatorSessionEntity[]> {
  return db
    .getRepository(OperatorSessionEntity)
    .find({ where: { operatorId }, order: { lastSeenAt: 'DESC', id: 'ASC' } });
}

/** Ends session `sid` of `operatorId`; false when the operator holds no such session. */
export async function deleteOperatorSession(
  db: DataSource | EntityManager,
  operatorId: string,
  sid: string,
): Promise<boolean> {
  const result = await db.getRepository(OperatorSessionEntity).delete({ id: sid, operatorId });
  return (result.affected ?? 0) > 0;
}

/** Ends every session of `operatorId` but `keepSid` (when given); returns the ids ended. */
export async function deleteOperatorSessionsOf(
  db: DataSource | EntityManager,
  operatorId: string,
  keepSid?: string,
): Promise<string[]> {
  const rows: { id: string }[] = await db.query(
    `WITH ended AS (DELETE FROM operator_sessions WHERE operator_id = $1 AND id IS DISTINCT FROM $2::uuid RETURNING id)
     SELECT id FROM ended`,
    [operatorId, keepSid || null],
  );
  return rows.map((r) => r.id);
}
