/**
 * Kept because bench:queries at 1M findings shows the plain page misses its goals for a rare term
 * (docs/benchmarks.md, "Plain queries"): for "ldap" (0.9 % of findings) Postgres plans
 * `ORDER BY severity, id LIMIT 50` as a walk of `ix_findings_live_severity` testing each finding's
 * text, as it cannot see that each test reads a version row (6,110 findings walked, 815 ms
 * against 113 ms for the count). Page + total inside `runReadOnly` took 4.83× the count alone;
 * with the matches collected once, 2.62× (2.77× before the plain queries). So a filter the planner
 * estimates selective is collected through its indexes once, and its page and total are cut from
 * that one collection.
 */
import type { EntityManager } from 'typeorm';
import type { FindingRow } from '@corpus-chat/contracts';
import type { FindingWhere } from './finding-filter';
import { PAGE_COLUMNS, ROW_SELECT, toRow, type RowRecord } from './finding-rows';

/**
 * Walking `(severity, id)` costs about this many times more per finding visited than collecting a
 * match through the indexes (the walk reads each finding's current version to test the text).
 */
const WALK_COST_RATIO = 5;

/**
 * Whether collecting every match of `where` (cost ∝ M, the planner's estimate of the matches, from
 * one `EXPLAIN`) beats walking `(severity, id)` until `offset + limit` matches were seen
 * (cost ∝ WALK_COST_RATIO · (offset + limit) · N / M, N the findings ANALYZE counted).
 */
export async function isSelective(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
): Promise<boolean> {
  const [plan]: { 'QUERY PLAN': { Plan: { 'Plan Rows': number } }[] }[] = await manager.query(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM findings f WHERE ${where.sql}`,
    where.params.values,
  );
  const matches = plan['QUERY PLAN'][0].Plan['Plan Rows'];
  const [table]: { n: number }[] = await manager.query(
    `SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'findings'::regclass`,
  );
  const findings = Math.max(table?.n ?? 0, matches, 1);
  return matches * matches <= WALK_COST_RATIO * (offset + Math.max(limit, 1)) * findings;
}

/** The matches of `where`, collected once (a MATERIALIZED CTE reads them through the indexes). */
const collected = (where: FindingWhere) =>
  `m AS MATERIALIZED (SELECT ${PAGE_COLUMNS} FROM findings f WHERE ${where.sql})`;

/** The page of a selective filter, most severe first, then by id, cut from its collected matches. */
export async function selectivePage(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
): Promise<FindingRow[]> {
  const p = where.params.clone();
  const rows: RowRecord[] = await manager.query(
    `WITH ${collected(where)},
          page AS (SELECT * FROM m f ORDER BY f.severity, f.id LIMIT ${p.add(limit)} OFFSET ${p.add(offset)})
     ${ROW_SELECT} ORDER BY p.severity, p.id`,
    p.values,
  );
  return rows.map(toRow);
}

/** {@link selectivePage} and the exact count of the same collected matches, in one statement. */
export async function selectivePageAndTotal(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
): Promise<{ rows: FindingRow[]; total: number }> {
  const p = where.params.clone();
  const [row]: { total: number; rows: (RowRecord & { severity_rank: number })[] }[] = await manager.query(
    `WITH ${collected(where)},
          page AS (SELECT * FROM m f ORDER BY f.severity, f.id LIMIT ${p.add(limit)} OFFSET ${p.add(offset)})
     SELECT (SELECT count(*) FROM m)::int AS total,
            (SELECT coalesce(json_agg(x ORDER BY x.severity_rank, x.id), '[]'::json)
             FROM (SELECT q.*, array_position(enum_range(NULL::finding_severity), q.severity::finding_severity) AS severity_rank
                   FROM (${ROW_SELECT}) q) x) AS rows`,
    p.values,
  );
  return { total: row.total, rows: row.rows.map(({ severity_rank: _rank, ...r }) => toRow(r)) };
}
