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
import { answerableFromSummary, severitySummary } from './severity-summary';

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
 * Whether cutting a page from all matches (collect them through the indexes, sort; cost ∝ M) is
 * cheaper than walking the `(severity, id)` index until `offset + limit` matches were seen
 * (cost ∝ WALK_COST_RATIO · (offset + limit) · N / M), for the planner's estimate M of the matches
 * among N findings.
 */
export async function isSelective(manager: EntityManager, where: FindingWhere, limit: number, offset: number): Promise<boolean> {
  const matches = await estimateMatching(manager, where);
  const tableRows = Math.max(await estimatedTableRows(manager), matches, 1);
  return matches * matches <= WALK_COST_RATIO * (offset + Math.max(limit, 1)) * tableRows;
}

const PAGE_COLUMNS = 'f.id, f.severity, f.report_id, f.cwe, f.latest_verdict, f.created_at, f.current_version_id';

/** The row fields of a page `p` (ordered by severity, id) joined with versions and reports. */
const ROW_SELECT = `SELECT p.id, fv.title, p.severity::text AS severity, p.report_id AS "reportId", r.filename AS "reportFilename", p.cwe,
         CASE WHEN jsonb_typeof(fv.cvss -> 'base_score') = 'number' THEN (fv.cvss ->> 'base_score')::float8 END AS "cvssBaseScore",
         p.latest_verdict AS "latestVerdict", p.created_at AS "createdAt"
       FROM page p
       JOIN finding_versions fv ON fv.id = p.current_version_id
       LEFT JOIN reports r ON r.id = p.report_id`;

const toRow = (r: RowRecord): FindingRow => ({ ...r, createdAt: new Date(r.createdAt).toISOString() });

/**
 * The page of current findings matching `where`, most severe first, then by id: collected and
 * sorted when the filter is selective, else by walking the `(severity, id)` index (see
 * {@link isSelective}), so neither a rare nor a very common term reads more than it needs.
 */
export async function findingRows(manager: EntityManager, where: FindingWhere, limit: number, offset: number): Promise<FindingRow[]> {
  if (limit === 0) return [];
  const selective = await isSelective(manager, where, limit, offset);
  const p = where.params.clone();
  const window = `LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
  const page = selective
    ? `m AS MATERIALIZED (SELECT ${PAGE_COLUMNS} FROM findings f WHERE ${where.sql}),
       page AS (SELECT * FROM m f ORDER BY f.severity, f.id ${window})`
    : `page AS (SELECT ${PAGE_COLUMNS} FROM findings f WHERE ${where.sql} ORDER BY f.severity, f.id ${window})`;
  const rows: RowRecord[] = await manager.query(`WITH ${page} ${ROW_SELECT} ORDER BY p.severity, p.id`, p.values);
  return rows.map(toRow);
}

/**
 * A page and the exact total in one statement, for a selective filter: the matches are collected
 * once (one pass through the indexes), then counted by a scalar subquery and sorted for the page.
 */
async function selectivePageAndTotal(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
): Promise<{ rows: FindingRow[]; total: number }> {
  const p = where.params.clone();
  const [row]: { total: number; rows: RowRecord[] }[] = await manager.query(
    `WITH m AS MATERIALIZED (SELECT ${PAGE_COLUMNS} FROM findings f WHERE ${where.sql}),
          page AS (SELECT * FROM m f ORDER BY f.severity, f.id LIMIT ${p.add(limit)} OFFSET ${p.add(offset)})
     SELECT (SELECT count(*) FROM m)::int AS total,
            (SELECT coalesce(json_agg(x ORDER BY x.severity_rank, x.id), '[]'::json)
             FROM (SELECT q.*, array_position(enum_range(NULL::finding_severity), q.severity::finding_severity) AS severity_rank
                   FROM (${ROW_SELECT}) q) x) AS rows`,
    p.values,
  );
  return { total: row.total, rows: row.rows.map(({ severity_rank: _rank, ...r }: RowRecord & { severity_rank?: number }) => toRow(r)) };
}

/** The exact number of current findings matching `where` (a plain count, never a window function). */
export async function countMatching(manager: EntityManager, where: FindingWhere): Promise<number> {
  const [row]: { total: number }[] = await manager.query(`SELECT count(*)::int AS total FROM findings f WHERE ${where.sql}`, where.params.values);
  return row.total;
}

/**
 * Current findings matching a filter: `total` is the exact number of distinct matches even when
 * `rows` is capped at `limit` (≤ 50); `filter` echoes what was applied, including the weakness
 * classes a text was widened to. Archived reports are excluded unless `includeArchived`.
 *
 * The total is never a window function: a filter on severity/report only reads the trigger-kept
 * `finding_severity_counts`; a selective filter collects its matches once and counts them with a
 * scalar subquery in the same statement as the page; a broad one runs a separate count beside the
 * index walk that cuts the page (concurrently when the manager is not bound to one connection).
 * Results are cached per corpus version.
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
    let rows: FindingRow[];
    let total: number;
    if (answerableFromSummary(filter)) {
      const [page, summary] = await Promise.all([findingRows(manager, where, limit, offset), severitySummary(manager, filter, where)]);
      rows = page;
      total = summary.reduce((n, s) => n + s.findings, 0);
    } else if (limit > 0 && (await isSelective(manager, where, limit, offset))) {
      ({ rows, total } = await selectivePageAndTotal(manager, where, limit, offset));
    } else {
      [rows, total] = await Promise.all([findingRows(manager, where, limit, offset), countMatching(manager, where)]);
    }
    return { total, rows, limit, offset, filter: where.applied };
  });
}
