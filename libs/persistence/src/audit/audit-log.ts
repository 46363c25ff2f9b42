import os from 'node:os';
import type { EntityManager } from 'typeorm';
import {
  AUDIT_CURSOR_PATTERN,
  type AuditAction,
  type AuditEventView,
  type AuditPage,
} from '@corpus-chat/contracts';
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
  /** Events at or after this instant (ISO 8601). */
  from?: string;
  /** Events before this instant (ISO 8601). */
  to?: string;
  /** Events after this one in the order (the previous page's `nextCursor`). */
  cursor?: string;
  /** Page size, 1–200 (default 50). */
  limit?: number;
}

/**
 * `v` (ISO 8601 date or date-time) as an instant; without an offset it is UTC, whatever the server's zone.
 */
function utcInstant(v: string): string {
  const t = v.replace(' ', 'T');
  const hasOffset = /T.*(Z|[+-]\d{2}(:?\d{2})?)$/i.test(t);
  // Passed to Postgres as text: a JS Date would drop the microseconds.
  return hasOffset ? t : t.includes('T') ? `${t}Z` : `${t}T00:00:00Z`;
}

/**
 * Audit events matching `filter`, newest first by time (events of one transaction share it: then
 * the later id first), one page; `nextCursor` is null on the last page. Keyset paging on
 * `(created_at, id)`, served by the indexes that end in those columns.
 */
export async function listAuditEvents(manager: EntityManager, filter: AuditFilter = {}): Promise<AuditPage> {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
  const params: unknown[] = [];
  const where: string[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql.replace(/\?/g, () => `$${params.push(values.shift())}`));
  };
  if (filter.action) add('action = ?', filter.action);
  if (filter.actorId) add('actor_id = ?::uuid', filter.actorId);
  if (filter.subjectType) add('subject_type = ?', filter.subjectType);
  if (filter.subjectId) add('subject_id = ?', filter.subjectId);
  if (filter.from) add('created_at >= ?::timestamptz', utcInstant(filter.from));
  if (filter.to) add('created_at < ?::timestamptz', utcInstant(filter.to));
  if (filter.cursor) {
    // The time is in microseconds (exact, unlike a JS Date): events of one transaction share it.
    const m = AUDIT_CURSOR_PATTERN.exec(filter.cursor);
    if (!m) throw new RangeError('cursor must be a nextCursor the API answered');
    add(
      `(created_at, id) < (timestamptz 'epoch' + ?::bigint * interval '1 microsecond', ?::bigint)`,
      m[1],
      m[2],
    );
  }
  params.push(limit + 1);
  const rows: (Omit<AuditEventView, 'id' | 'createdAt'> & { id: string; createdAt: Date; micros: string })[] =
    await manager.query(
      `SELECT id::text AS id, action, actor_id AS "actorId", actor_name AS "actorName", subject_type AS "subjectType",
            subject_id AS "subjectId", before, after, created_at AS "createdAt",
            (extract(epoch FROM created_at) * 1000000)::bigint::text AS micros
     FROM audit_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY audit_events.created_at DESC, audit_events.id DESC LIMIT $${params.length}`,
      params,
    );
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    events: page.map(({ micros: _micros, ...r }) => ({
      ...r,
      id: Number(r.id),
      createdAt: new Date(r.createdAt).toISOString(),
    })),
    nextCursor: rows.length > limit && last ? `${last.micros}_${last.id}` : null,
  };
}
