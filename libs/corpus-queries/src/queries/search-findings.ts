import type { EntityManager } from 'typeorm';
import {
  SEARCH_ROWS_CAP,
  type FindingFilter,
  type FindingRow,
  type SearchFindingsResult,
} from '@corpus-chat/contracts';
import { buildFindingWhere, type FindingWhere } from './finding-filter';
import { cachedQuery, type QueryOptions } from './query-cache';
import { concurrently } from './concurrently';
import { intInRange, normaliseFilter } from './query-validation';
import { PAGE_COLUMNS, ROW_SELECT, isSelective, pageOfAll, toRow, type RowRecord } from './finding-rows';
import { estimateBySeverity, pageBySeverity } from './search-by-severity';
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

export { WALK_COST_RATIO, estimateMatching, isSelective } from './finding-rows';
export {
  SEVERITY_SHARE_TTL_MS,
  TSQUERY_CACHE_SIZE,
  WINDOW_MARGIN,
  chooseSeverityStep,
  estimateBySeverity,
  explainBySeverity,
  forgetSeverityShares,
  liveSeverityShares,
  pageBySeverity,
  severityStepSql,
  type SeverityEstimate,
  type SeverityShare,
  type SeverityShares,
  type SeverityStep,
} from './search-by-severity';

/**
 * The page of current findings matching `where`, most severe first, then by id.
 *
 * With a text condition, no offset and archived reports excluded, the page is cut one severity
 * at a time ({@link pageBySeverity}) unless the estimate says the matches are few (at most
 * {@link COLLECT_ALL_MAX_MATCHES}: collected at once); otherwise in one statement, by collecting and sorting the
 * matches when the filter is selective or by walking the `(severity, id)` index (see
 * {@link isSelective}), so neither a rare nor a very common term reads more than it needs.
 */
export async function findingRows(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
): Promise<FindingRow[]> {
  if (limit === 0) return [];
  if (bySeverityApplies(where, offset)) {
    const estimates = await estimateBySeverity(manager, where);
    if (estimates.reduce((n, e) => n + e.matches, 0) > COLLECT_ALL_MAX_MATCHES)
      return pageBySeverity(manager, where, limit, estimates);
    return pageOfAll(manager, where, limit, offset, true);
  }
  return pageOfAll(manager, where, limit, offset, await isSelective(manager, where, limit, offset));
}

/**
 * Up to this many estimated matches, a text search's page is cut from all of them at once (one
 * statement) rather than one severity at a time: collecting ~3,000 findings costs about what two
 * more round trips with their planning cost, and a page of a rare term often needs two or three
 * severities (at 100k findings "ldap" has 48 critical matches, so a page of 50 reads two).
 */
export const COLLECT_ALL_MAX_MATCHES = 3000;

/** Whether a page for `where` at `offset` is cut one severity at a time (see {@link pageBySeverity}). */
function bySeverityApplies(where: FindingWhere, offset: number): boolean {
  return where.hasText && offset === 0 && !where.applied.includeArchived;
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
  return {
    total: row.total,
    rows: row.rows.map(({ severity_rank: _rank, ...r }: RowRecord & { severity_rank?: number }) => toRow(r)),
  };
}

/** The exact number of current findings matching `where` (a plain count, never a window function). */
export async function countMatching(manager: EntityManager, where: FindingWhere): Promise<number> {
  const [row]: { total: number }[] = await manager.query(
    `SELECT count(*)::int AS total FROM findings f WHERE ${where.sql}`,
    where.params.values,
  );
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
 * page (concurrently when the manager is not bound to one connection). A text filter (first page,
 * archived excluded) always counts beside its page, which is cut one severity at a time
 * ({@link pageBySeverity}) unless the estimate says its matches are few.
 * Results are cached per corpus version. The page and the total are several statements: call it
 * inside `runReadOnly` (REPEATABLE READ) for one snapshot while imports may commit, as the agent's
 * tools and the findings API do.
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
      const [page, summary] = await concurrently(manager, [
        () => findingRows(manager, where, limit, offset),
        () => severitySummary(manager, filter, where),
      ]);
      rows = page;
      total = summary.reduce((n, s) => n + s.findings, 0);
    } else if (
      limit > 0 &&
      !bySeverityApplies(where, offset) &&
      (await isSelective(manager, where, limit, offset))
    ) {
      ({ rows, total } = await selectivePageAndTotal(manager, where, limit, offset));
    } else {
      // The count, the longer of the two, is sent first.
      [total, rows] = await concurrently(manager, [
        () => countMatching(manager, where),
        () => findingRows(manager, where, limit, offset),
      ]);
    }
    return { total, rows, limit, offset, filter: where.applied };
  });
}
