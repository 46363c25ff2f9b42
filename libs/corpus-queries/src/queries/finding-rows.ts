/**
 * The pieces every finding page is read with: the page's columns and row select, the match
 * estimates that choose between collecting and walking the `(severity, id)` index, and the page
 * read in one statement. `search-findings.ts` dispatches; `search-by-severity.ts` cuts a text
 * search's page one severity at a time.
 */
import type { EntityManager } from 'typeorm';
import { type FindingRow, type Severity, type TriageStatus, type VerdictStatus } from '@corpus-chat/contracts';
import { type FindingWhere } from './finding-filter';

export interface RowRecord {
  id: number;
  title: string;
  severity: Severity;
  reportId: number | null;
  reportFilename: string | null;
  cwe: number[];
  cvssBaseScore: number | null;
  latestVerdict: VerdictStatus | null;
  status: TriageStatus;
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
  const [row]: { n: number }[] = await manager.query(
    `SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'findings'::regclass`,
  );
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
 * Whether cutting a page from all matches (collect them through the indexes, sort; cost ∝ M) is
 * cheaper than walking the `(severity, id)` index until `offset + limit` matches were seen
 * (cost ∝ WALK_COST_RATIO · (offset + limit) · N / M), for the planner's estimate M of the matches
 * among N findings.
 */
export async function isSelective(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
): Promise<boolean> {
  const matches = await estimateMatching(manager, where);
  const tableRows = Math.max(await estimatedTableRows(manager), matches, 1);
  return matches * matches <= WALK_COST_RATIO * (offset + Math.max(limit, 1)) * tableRows;
}

export const PAGE_COLUMNS =
  'f.id, f.severity, f.report_id, f.cwe, f.latest_verdict, f.status, f.created_at, f.current_version_id';

/** The page columns plus every column a {@link FindingWhere} may test, for a walk's bounded subquery. */
export const WALK_COLUMNS = `${PAGE_COLUMNS}, f.archived`;

/**
 * The row fields of a page `p` (ordered by severity, id) joined with versions; the report's file
 * name is a per-row lookup (a page is at most 50 rows: the planner otherwise hashes all reports).
 */
export const ROW_SELECT = `SELECT p.id, fv.title, p.severity::text AS severity, p.report_id AS "reportId",
         (SELECT r.filename FROM reports r WHERE r.id = p.report_id) AS "reportFilename", p.cwe,
         CASE WHEN jsonb_typeof(fv.cvss -> 'base_score') = 'number' THEN (fv.cvss ->> 'base_score')::float8 END AS "cvssBaseScore",
         p.latest_verdict AS "latestVerdict", p.status, p.created_at AS "createdAt"
       FROM page p
       JOIN finding_versions fv ON fv.id = p.current_version_id`;

export const toRow = (r: RowRecord): FindingRow => ({ ...r, createdAt: new Date(r.createdAt).toISOString() });

/**
 * One statement: the page of findings matching `where` in (severity, id) order, either collected
 * and sorted (`collect`) or by walking the `(severity, id)` index until `offset + limit` matches.
 */
export async function pageOfAll(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
  collect: boolean,
): Promise<FindingRow[]> {
  const p = where.params.clone();
  const window = `LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
  const page = collect
    ? `m AS MATERIALIZED (SELECT ${PAGE_COLUMNS} FROM findings f WHERE ${where.sql}),
       page AS (SELECT * FROM m f ORDER BY f.severity, f.id ${window})`
    : `page AS (SELECT ${PAGE_COLUMNS} FROM findings f WHERE ${where.sql} ORDER BY f.severity, f.id ${window})`;
  const rows: RowRecord[] = await manager.query(
    `WITH ${page} ${ROW_SELECT} ORDER BY p.severity, p.id`,
    p.values,
  );
  return rows.map(toRow);
}
