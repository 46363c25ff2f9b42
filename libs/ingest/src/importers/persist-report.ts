import { setTimeout as delay } from 'node:timers/promises';
import type { EntityManager } from 'typeorm';
import { identityKey } from './identity';
import type { ParsedFinding } from './parsed-report';

/** Rows per INSERT … SELECT FROM unnest(…) statement. */
const CHUNK = 2000;
/**
 * Text per finding_versions statement, at most (about): its parameters are built and encoded in one
 * go on the event loop, which a large report's 2,000 rows would hold for hundreds of milliseconds.
 */
const CHUNK_CHARS = 250_000;

/**
 * How a background store yields: it may take `share` of wall time (after d ms of work it waits
 * d × (1 − share) / share) so chat turns keep room. `checkpoint` runs after each statement and
 * throws to stop the store (a cancel).
 */
export type InsertPacing = { share: number; checkpoint?: (manager: EntityManager) => Promise<void> };

/** `manager` whose `query` waits and checks after each statement as `pacing` says. */
function pacedManager(manager: EntityManager, pacing?: InsertPacing): Pick<EntityManager, 'query'> {
  if (!pacing) return manager;
  // Busy since the last wait ended: the statement's columns were built in that time too.
  let busySince = performance.now();
  return {
    query: async (sql: string, parameters?: unknown[]) => {
      const result = await manager.query(sql, parameters);
      if (pacing.share < 1)
        await delay(((performance.now() - busySince) * (1 - pacing.share)) / pacing.share);
      await pacing.checkpoint?.(manager);
      busySince = performance.now();
      return result;
    },
  } as Pick<EntityManager, 'query'>;
}

/** Reserves `n` values of the identity sequence of `table.id`, in ascending order. */
export async function reserveIds(manager: EntityManager, table: string, n: number): Promise<number[]> {
  if (n === 0) return [];
  // One array rather than n rows: reading tens of thousands of rows would hold the event loop.
  const [{ ids }]: { ids: number[] }[] = await manager.query(
    `SELECT array_agg(id ORDER BY id) AS ids FROM (SELECT nextval(pg_get_serial_sequence($1, 'id'))::int AS id FROM generate_series(1, $2)) s`,
    [table, n],
  );
  return ids;
}

/** JSON text for a jsonb column: Postgres refuses the NUL character (`\\u0000`) in jsonb, so it is dropped. */
export function toJsonb(value: unknown): string {
  const text = JSON.stringify(value);
  // The replacer makes it several times slower: only when there is a NUL (or `\u0000` text) to drop.
  if (text === undefined || !text.includes('\\u0000')) return text;
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.replace(/\0/g, '') : v));
}

const pgIntArray = (ids: number[]): string => `{${ids.join(',')}}`;

/** `rows` as one array per key, in `keys`' order: the parameters of an `unnest(…)` insert. */
const columns = <T>(rows: T[], keys: (keyof T)[]): unknown[][] => keys.map((k) => rows.map((r) => r[k]));

/**
 * Writes one report's findings with their versions, notes and verdicts, inside the caller's
 * transaction, one `INSERT … SELECT FROM unnest(…)` per chunk. Returns the ids in input order.
 */
export async function insertFindings(
  target: EntityManager,
  reportId: number | null,
  findings: ParsedFinding[],
  pacing?: InsertPacing,
): Promise<number[]> {
  const manager = pacedManager(target, pacing);
  const findingIds = await reserveIds(target, 'findings', findings.length);
  const versionCount = findings.reduce((n, f) => n + f.versions.length, 0);
  const versionIds = await reserveIds(target, 'finding_versions', versionCount);

  // finding_versions, each statement's columns built just before it runs, up to CHUNK rows or
  // CHUNK_CHARS of text
  const currentVersion: number[] = [];
  let v = versionColumns();
  let k = 0;
  let chars = 0;
  for (const [i, f] of findings.entries()) {
    for (const [n, ver] of f.versions.entries()) {
      const raw = ver.raw === undefined ? null : toJsonb(ver.raw);
      v.id.push(versionIds[k++]);
      v.findingId.push(findingIds[i]);
      v.version.push(n + 1);
      v.origin.push(ver.origin);
      v.title.push(ver.title);
      v.severity.push(ver.severity);
      v.description.push(ver.description);
      v.impact.push(ver.impact);
      v.attackVector.push(ver.attackVector);
      v.endpoints.push(toJsonb(ver.affectedEndpoints));
      v.steps.push(toJsonb(ver.reproductionSteps));
      v.cwe.push(pgIntArray(ver.cwe));
      v.cvss.push(ver.cvss ? JSON.stringify(ver.cvss) : null);
      v.mitre.push(toJsonb(ver.mitre));
      v.raw.push(raw);
      v.editedBy.push(ver.editedBy);
      v.reason.push(ver.reason);
      v.createdAt.push(ver.createdAt);
      chars += ver.title.length + ver.description.length + (ver.impact?.length ?? 0) + (raw?.length ?? 0);
      if (v.id.length >= CHUNK || chars >= CHUNK_CHARS) {
        await insertVersions(manager, v);
        v = versionColumns();
        chars = 0;
      }
    }
    currentVersion.push(versionIds[k - 1]);
  }
  if (v.id.length) await insertVersions(manager, v);

  // findings, copying the current version's severity and CWE ids
  for (let s = 0; s < findings.length; s += CHUNK) {
    await manager.query(
      `INSERT INTO findings (id, report_id, current_version_id, severity, cwe, identity_key, created_at)
       SELECT u.id, $1, fv.id, fv.severity, fv.cwe, u.identity_key, coalesce(u.created_at::timestamptz, now())
       FROM unnest($2::int[], $3::int[], $4::text[], $5::text[]) AS u(id, current_version_id, created_at, identity_key)
       JOIN finding_versions fv ON fv.id = u.current_version_id
       ORDER BY u.id`,
      [
        reportId,
        findingIds.slice(s, s + CHUNK),
        currentVersion.slice(s, s + CHUNK),
        findings.slice(s, s + CHUNK).map((f) => f.createdAt),
        findings.slice(s, s + CHUNK).map((f) => (f.identity ? identityKey(f.identity) : null)),
      ],
    );
  }

  // notes
  const notes = findings.flatMap((f, i) => f.notes.map((n) => ({ ...n, findingId: findingIds[i] })));
  for (let s = 0; s < notes.length; s += CHUNK) {
    const c = notes.slice(s, s + CHUNK);
    await manager.query(
      `INSERT INTO finding_notes (finding_id, stage, body, author, created_at)
       SELECT finding_id, stage, body, author, coalesce(created_at::timestamptz, now())
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY
         AS u(finding_id, stage, body, author, created_at, ord)
       ORDER BY ord`,
      columns(c, ['findingId', 'stage', 'body', 'author', 'createdAt']),
    );
  }

  // verdicts, then each finding's latest verdict (by created_at, then id)
  const verdicts = findings.flatMap((f, i) => f.verdicts.map((x) => ({ ...x, findingId: findingIds[i] })));
  for (let s = 0; s < verdicts.length; s += CHUNK) {
    const c = verdicts.slice(s, s + CHUNK);
    await manager.query(
      `INSERT INTO verdicts (finding_id, status, reason_code, rationale, actor, created_at)
       SELECT finding_id, status, reason_code, rationale, actor, coalesce(created_at::timestamptz, now())
       FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY
         AS u(finding_id, status, reason_code, rationale, actor, created_at, ord)
       ORDER BY ord`,
      columns(c, ['findingId', 'status', 'reasonCode', 'rationale', 'actor', 'createdAt']),
    );
  }
  if (verdicts.length) {
    const withVerdicts = [...new Set(verdicts.map((x) => x.findingId))];
    await manager.query(
      `UPDATE findings f SET latest_verdict = (
         SELECT v.status FROM verdicts v WHERE v.finding_id = f.id ORDER BY v.created_at DESC, v.id DESC LIMIT 1)
       WHERE f.id = ANY($1::int[])`,
      [withVerdicts],
    );
  }
  return findingIds;
}

/** The columns of a finding_versions insert, in the order of its parameters ($1 … $18). */
function versionColumns() {
  return {
    id: [] as number[],
    findingId: [] as number[],
    version: [] as number[],
    origin: [] as string[],
    title: [] as string[],
    severity: [] as string[],
    description: [] as string[],
    impact: [] as (string | null)[],
    attackVector: [] as (string | null)[],
    endpoints: [] as string[],
    steps: [] as string[],
    cwe: [] as string[],
    cvss: [] as (string | null)[],
    mitre: [] as string[],
    raw: [] as (string | null)[],
    editedBy: [] as (string | null)[],
    reason: [] as (string | null)[],
    createdAt: [] as (string | null)[],
  };
}

async function insertVersions(
  manager: Pick<EntityManager, 'query'>,
  v: ReturnType<typeof versionColumns>,
): Promise<void> {
  await manager.query(
    `INSERT INTO finding_versions (id, finding_id, version, origin, title, severity, description, impact, attack_vector,
       affected_endpoints, reproduction_steps, cwe, cvss, mitre, raw, edited_by, reason, created_at)
     SELECT id, finding_id, version, origin, title, severity, description, impact, attack_vector,
       endpoints::jsonb, steps::jsonb, cwe::int[], cvss::jsonb, mitre::jsonb, raw::jsonb, edited_by, reason,
       coalesce(created_at::timestamptz, now())
     FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::text[], $6::finding_severity[], $7::text[], $8::text[],
       $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
       $18::text[])
       AS u(id, finding_id, version, origin, title, severity, description, impact, attack_vector, endpoints, steps, cwe,
         cvss, mitre, raw, edited_by, reason, created_at)`,
    Object.values(v),
  );
}
