import type { EntityManager } from 'typeorm';
import {
  searchFindingsListSchema,
  type FindingRow,
  type SearchFindingsArgs,
  type SearchFindingsResult,
} from '@corpus-chat/contracts';
import { buildFindingWhere, type FindingWhere } from './finding-filter';
import { cachedQuery, type QueryOptions } from './query-cache';
import { parseArgs, type NormalisedFilter } from './query-validation';
import { PAGE_COLUMNS, ROW_SELECT, toRow, type RowRecord } from './finding-rows';
import { answerableFromSummary, severitySummary } from './severity-summary';
import { matchesBySeverity, pagedBySeverity, severityPage } from './severity-page';

/** A page of findings matching `where` in `(severity, id)` order; text searches use `severity-page.ts`. */
export async function findingRows(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
): Promise<FindingRow[]> {
  if (limit === 0) return [];
  if (pagedBySeverity(where)) return severityPage(manager, where, limit, offset);
  const p = where.params.clone();
  const rows: RowRecord[] = await manager.query(
    `WITH page AS (SELECT ${PAGE_COLUMNS} FROM findings f WHERE ${where.sql}
                   ORDER BY f.severity, f.id LIMIT ${p.add(limit)} OFFSET ${p.add(offset)})
     ${ROW_SELECT} ORDER BY p.severity, p.id`,
    p.values,
  );
  return rows.map(toRow);
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
 * Current findings matching a filter: `rows` capped at `limit` (≤ 50), `total` exact; `filter`
 * echoes what was applied. The total comes from `finding_severity_counts` when only severity/report
 * filter, else from per-severity counts or `count(*)`, never a window function. Cached per corpus
 * version; call it inside `runReadOnly` for one snapshot.
 *
 * @throws QueryValidationError for a bad filter value.
 */
export async function searchFindings(
  manager: EntityManager,
  input: SearchFindingsArgs = {},
  options?: QueryOptions,
): Promise<SearchFindingsResult> {
  const { limit, offset, ...asked } = parseArgs(searchFindingsListSchema, input);
  const filter: NormalisedFilter = { ...asked, includeArchived: asked.includeArchived ?? false };
  return cachedQuery(manager, 'searchFindings', { filter, limit, offset }, options, async () => {
    const where = await buildFindingWhere(manager, filter);
    if (pagedBySeverity(where) && offset > 0 && limit > 0) {
      const counts = await matchesBySeverity(manager, where);
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      const rows = await severityPage(manager, where, limit, offset, counts);
      return { total, rows, limit, offset, filter: where.applied };
    }
    const total = answerableFromSummary(filter)
      ? (await severitySummary(manager, filter, where)).reduce((n, s) => n + s.findings, 0)
      : await countMatching(manager, where);
    const rows = await findingRows(manager, where, limit, offset);
    return { total, rows, limit, offset, filter: where.applied };
  });
}
