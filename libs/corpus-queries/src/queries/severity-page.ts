/**
 * Kept because bench:queries at 1M findings shows the plain page misses its goals for a text search
 * (docs/bench-log.md, "6 against the code before the plain queries" and "Plain queries"): for
 * "cookie" (10.8 % of findings) Postgres plans `ORDER BY severity, id LIMIT 50` as a walk of
 * `ix_findings_live_severity` testing each finding's text through its version row (~1,680 findings
 * at ~5 µs), 13.6 ms p95 for the capped page against a 5 ms goal, and for "ldap" (0.9 %) 6,110
 * findings. So a text search's page is cut one severity at a time, most severe first: each
 * severity's statement tests the text over that severity's own index expression (`ix_findings_search_<severity>`, migration
 * CorpusSearchPageBySeverity), whose statistics let the planner choose between reading the
 * severity's matches and walking its findings.
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
 * The findings matching `where` from `offset`, at most `limit`, most severe first, then by id: for
 * each severity in order, `WHERE f.severity = <s> AND <where over that severity's search vector>
 * ORDER BY f.id LIMIT <still needed> OFFSET <still to skip>`, until the page is full; Postgres reads
 * the severity's matches through its index or walks findings in id order, whichever its
 * statistics say is cheaper. Each statement keeps exactly the findings of severity `<s>` that
 * `where` keeps, so the rows are those of the plain `ORDER BY severity, id`. A later page
 * (`offset` > 0) skips whole severities by their `counts` (from {@link matchesBySeverity}, read
 * here when not given).
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
