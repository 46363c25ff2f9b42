import type { EntityManager } from 'typeorm';
import {
  SEARCH_ROWS_CAP,
  type FindingFilter,
  type FindingRow,
  type SearchFindingsResult,
  type Severity,
  type VerdictStatus,
} from '@corpus-chat/contracts';
import { buildFindingWhere, type FindingWhere } from './finding-filter';
import { cachedQuery, type QueryOptions } from './query-cache';
import { intInRange, normaliseFilter } from './query-validation';

/** Arguments of {@link searchFindings}: a finding filter plus a page. */
export interface SearchFindingsInput extends FindingFilter {
  /** Rows to return, 0–50 (default 10); `total` is exact whatever the limit. */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
}

/** Rows per page when the caller gives no limit. */
export const DEFAULT_SEARCH_LIMIT = 10;

interface RowRecord {
  id: number;
  title: string;
  severity: Severity;
  reportId: number | null;
  reportFilename: string | null;
  cwe: number[];
  cvssBaseScore: number | null;
  latestVerdict: VerdictStatus | null;
  createdAt: Date;
}

/**
 * Walking the `(severity, id)` order costs about this many times more per finding visited than
 * collecting a match through the indexes and sorting it (the walk looks up each finding's current
 * version to test the text). Measured on the synthetic corpus (bench/queries.bench.ts).
 */
export const WALK_COST_RATIO = 5;

/** Findings in the table, as last counted by ANALYZE/VACUUM (an estimate; -1 before the first). */
async function estimatedTableRows(manager: EntityManager): Promise<number> {
  const [row]: { n: number }[] = await manager.query(`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'findings'::regclass`);
  return row?.n ?? -1;
}

/** The planner's estimate of how many findings `where` matches (one EXPLAIN, no execution). */
export async function estimateMatching(manager: EntityManager, where: FindingWhere): Promise<number> {
  const [row]: { 'QUERY PLAN': { Plan: { 'Plan Rows': number } }[] }[] = await manager.query(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM findings f WHERE ${where.sql}`,
    where.params.values,
  );
  return row['QUERY PLAN'][0].Plan['Plan Rows'];
}

/**
 * The page of current findings matching `where`, most severe first, then by id. From the planner's
 * estimate of the matches M among N findings it picks the cheaper way to cut the page: collect all
 * M matches through the indexes and sort them (cost ∝ M), or walk the `(severity, id)` index and
 * stop once `offset + limit` matches were seen (cost ∝ WALK_COST_RATIO · (offset + limit) · N / M).
 * So neither a rare nor a very common term reads more than it needs.
 */
export async function findingRows(manager: EntityManager, where: FindingWhere, limit: number, offset: number): Promise<FindingRow[]> {
  if (limit === 0) return [];
  const matches = await estimateMatching(manager, where);
  const tableRows = Math.max(await estimatedTableRows(manager), matches, 1);
  const selective = matches * matches <= WALK_COST_RATIO * (offset + limit) * tableRows;
  const p = where.params.clone();
  const page = `LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
  const columns = 'f.id, f.severity, f.report_id, f.cwe, f.latest_verdict, f.created_at, f.current_version_id';
  const pageQuery = selective
    ? `WITH m AS MATERIALIZED (SELECT ${columns} FROM findings f WHERE ${where.sql})
       SELECT * FROM m f ORDER BY f.severity, f.id ${page}`
    : `SELECT ${columns} FROM findings f WHERE ${where.sql} ORDER BY f.severity, f.id ${page}`;
  const rows: RowRecord[] = await manager.query(
    `SELECT f.id, fv.title, f.severity::text AS severity, f.report_id AS "reportId", r.filename AS "reportFilename", f.cwe,
            CASE WHEN jsonb_typeof(fv.cvss -> 'base_score') = 'number' THEN (fv.cvss ->> 'base_score')::float8 END AS "cvssBaseScore",
            f.latest_verdict AS "latestVerdict", f.created_at AS "createdAt"
     FROM (${pageQuery}) f
     JOIN finding_versions fv ON fv.id = f.current_version_id
     LEFT JOIN reports r ON r.id = f.report_id
     ORDER BY f.severity, f.id`,
    p.values,
  );
  return rows.map((r) => ({ ...r, createdAt: new Date(r.createdAt).toISOString() }));
}

/** The exact number of current findings matching `where` (a plain count, never a window function). */
export async function countMatching(manager: EntityManager, where: FindingWhere): Promise<number> {
  const [row]: { total: number }[] = await manager.query(`SELECT count(*)::int AS total FROM findings f WHERE ${where.sql}`, where.params.values);
  return row.total;
}

/**
 * Current findings matching a filter: `total` is the exact number of distinct matches even when
 * `rows` is capped at `limit` (≤ 50); `filter` echoes what was applied, including the weakness
 * classes a text was widened to. Archived reports are excluded unless `includeArchived`. The page
 * and the count are two statements (run concurrently when the manager is not bound to one
 * connection). Results are cached per corpus version.
 *
 * @throws QueryValidationError for a bad filter value (unknown severity, non-integer id, unknown report).
 */
export async function searchFindings(
  manager: EntityManager,
  input: SearchFindingsInput = {},
  options?: QueryOptions,
): Promise<SearchFindingsResult> {
  const filter = normaliseFilter(input, ['limit', 'offset']);
  const limit = intInRange('limit', input.limit, 0, SEARCH_ROWS_CAP, DEFAULT_SEARCH_LIMIT);
  const offset = intInRange('offset', input.offset, 0, 1_000_000_000, 0);
  return cachedQuery(manager, 'searchFindings', { filter, limit, offset }, options, async () => {
    const where = await buildFindingWhere(manager, filter);
    const [rows, total] = await Promise.all([findingRows(manager, where, limit, offset), countMatching(manager, where)]);
    return { total, rows, limit, offset, filter: where.applied };
  });
}
