/**
 * Kept because bench:queries at 1M findings shows the plain `ORDER BY severity, id LIMIT 50` misses
 * its 5 ms goal for a text search (13.6 ms p95 for "cookie"; docs/bench-log.md "Plain queries"):
 * the page is cut one severity at a time, each statement over `ix_findings_search_<severity>`
 * (migration CorpusSearchPageBySeverity), whose statistics let the planner choose its plan.
 */
import type { EntityManager } from 'typeorm';
import { SEVERITIES, type FindingRow, type Severity } from '@corpus-chat/contracts';
import { SEARCH_VECTOR, type FindingWhere } from './finding-filter';
import { PAGE_COLUMNS, ROW_SELECT, toRow, type RowRecord } from './finding-rows';

/**
 * `'<severity>'::finding_severity` as a literal: an index expression only matches literals. Only the
 * enum's own values are accepted, never caller text.
 */
function severityLiteral(severity: Severity): string {
  if (!SEVERITIES.includes(severity)) throw new Error(`not a severity: ${String(severity)}`);
  return `'${severity}'::finding_severity`;
}

/** Exactly the expression of `ix_findings_search_<severity>`: the search vector, NULL for other severities. */
const severitySearchVector = (severity: Severity) =>
  `(CASE WHEN f.severity = ${severityLiteral(severity)} THEN ${SEARCH_VECTOR} END)`;

/** Whether {@link severityPage} cuts pages of `where`: every page of a text search. */
export function pagedBySeverity(where: FindingWhere): boolean {
  return where.applied.text !== undefined;
}

/** The number of findings matching `where`, per severity (severities without a match are absent). */
export async function matchesBySeverity(
  manager: EntityManager,
  where: FindingWhere,
): Promise<Map<Severity, number>> {
  const rows: { severity: Severity; n: number }[] = await manager.query(
    `SELECT f.severity::text AS severity, count(*)::int AS n FROM findings f WHERE ${where.sql} GROUP BY f.severity`,
    where.params.values,
  );
  return new Map(rows.map((r) => [r.severity, r.n]));
}

/**
 * The findings matching `where` from `offset`, at most `limit`, in `(severity, id)` order: one
 * statement per severity until the page is full, each over that severity's index expression. A
 * later page skips whole severities by their `counts` ({@link matchesBySeverity}).
 */
export async function severityPage(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
  counts?: Map<Severity, number>,
): Promise<FindingRow[]> {
  const matches = offset > 0 ? (counts ?? (await matchesBySeverity(manager, where))) : undefined;
  const page: RowRecord[] = [];
  let skip = offset;
  for (const severity of SEVERITIES) {
    const need = limit - page.length;
    if (need <= 0) break;
    if (where.applied.severity !== undefined && severity !== where.applied.severity) continue;
    if (matches) {
      const n = matches.get(severity) ?? 0;
      if (skip >= n) {
        skip -= n;
        continue;
      }
    }
    const p = where.params.clone();
    // `IS TRUE` keeps the severity test out of index scans: ANDed with `ix_findings_live_severity`,
    // it would read every finding of the severity for nothing (the severity's index holds no other).
    const rows: RowRecord[] = await manager.query(
      `WITH page AS (SELECT ${PAGE_COLUMNS} FROM findings f
                     WHERE (f.severity = ${severityLiteral(severity)}) IS TRUE
                       AND ${where.sqlWith(severitySearchVector(severity))}
                     ORDER BY f.id LIMIT ${p.add(need)} OFFSET ${p.add(skip)})
       ${ROW_SELECT} ORDER BY p.id`,
      p.values,
    );
    page.push(...rows);
    skip = 0;
  }
  return page.map(toRow);
}
