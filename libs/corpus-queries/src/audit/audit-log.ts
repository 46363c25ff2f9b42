import os from 'node:os';
import type { EntityManager } from 'typeorm';
import type { AuditAction, AuditEventView, AuditPage } from '@corpus-chat/contracts';
import { storableJson } from '../chat/storable';

/**
 * Who made a change: the signed-in operator (id and username), or a process acting for a person
 * with no operator account (id null, e.g. `cli:alice` for `corpus:import` run by the OS user alice).
 */
export interface AuditActor {
  id: string | null;
  username: string;
}

/** The actor of a command-line import (`corpus:import`, `npm start`'s first import): the OS user who ran it. */
export function cliActor(osUser: string = currentOsUser()): AuditActor {
  return { id: null, username: `cli:${osUser || 'unknown'}` };
}

/** The OS user running this process (containers without a passwd entry: `USER`, else the uid). */
function currentOsUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env['USER'] ?? String(process.getuid?.() ?? '');
  }
}

/** An event to record; `before`/`after` hold only the fields that changed (never secrets). */
export interface AuditEventInput {
  action: AuditAction;
  actor: AuditActor;
  subjectType: AuditEventView['subjectType'];
  subjectId: string | number | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/**
 * Appends one event to `audit_events`. Call it with the transaction's manager that makes the
 * change, so the event and the change commit or roll back together.
 */
export async function recordAuditEvent(manager: EntityManager, e: AuditEventInput): Promise<void> {
  await recordAuditEvents(manager, [e]);
}

/** Appends several events in one statement (a bulk change records one event per finding). */
export async function recordAuditEvents(manager: EntityManager, events: AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => ({
    action: e.action,
    actor_id: e.actor.id,
    actor_name: e.actor.username,
    subject_type: e.subjectType,
    subject_id: e.subjectId === null ? null : String(e.subjectId),
    before: e.before ?? null,
    after: e.after ?? null,
  }));
  await manager.query(
    `INSERT INTO audit_events (action, actor_id, actor_name, subject_type, subject_id, before, after)
     SELECT action, actor_id, actor_name, subject_type, subject_id, before, after
     FROM jsonb_to_recordset($1::jsonb) AS x(action text, actor_id uuid, actor_name text, subject_type text, subject_id text, before jsonb, after jsonb)`,
    // jsonb refuses NUL and lone surrogates (a display name may hold one): both become U+FFFD.
    [storableJson(rows)],
  );
}

/** Filter of {@link listAuditEvents}; all fields ANDed. */
export interface AuditFilter {
  action?: AuditAction;
  actorId?: string;
  subjectType?: AuditEventView['subjectType'];
  subjectId?: string;
  /** Only events with a smaller id (keyset paging, newest first). */
  before?: number;
  /** Page size, 1–200 (default 50). */
  limit?: number;
}

/**
 * Audit events matching `filter`, newest first, one page; `nextBefore` is null on the last page.
 * The order names the table's bigint column: a bare `id` would be the text alias of the SELECT
 * list, which sorts 9 above 10.
 */
export async function listAuditEvents(manager: EntityManager, filter: AuditFilter = {}): Promise<AuditPage> {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  const params: unknown[] = [];
  const where: string[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.action) add('action = ?', filter.action);
  if (filter.actorId) add('actor_id = ?::uuid', filter.actorId);
  if (filter.subjectType) add('subject_type = ?', filter.subjectType);
  if (filter.subjectId) add('subject_id = ?', filter.subjectId);
  if (filter.before) add('id < ?', filter.before);
  params.push(limit + 1);
  const rows: (Omit<AuditEventView, 'id' | 'createdAt'> & { id: string; createdAt: Date })[] =
    await manager.query(
      `SELECT id::text AS id, action, actor_id AS "actorId", actor_name AS "actorName", subject_type AS "subjectType",
            subject_id AS "subjectId", before, after, created_at AS "createdAt"
     FROM audit_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY audit_events.id DESC LIMIT $${params.length}`,
      params,
    );
  const events = rows
    .slice(0, limit)
    .map((r) => ({ ...r, id: Number(r.id), createdAt: new Date(r.createdAt).toISOString() }));
  return { events, nextBefore: rows.length > limit ? events[events.length - 1].id : null };
}
