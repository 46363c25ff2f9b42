import type { EntityManager } from 'typeorm';
import type { Severity } from '@corpus-chat/contracts';
import type { FindingWhere } from './finding-filter';
import type { NormalisedFilter } from './query-validation';

/** Findings of one report (`reportKey` 0 = no report) at one severity. */
export interface SeveritySummaryRow {
  reportKey: number;
  severity: Severity;
  findings: number;
}

/**
 * True when a filter restricts findings by nothing but severity, report and archived state, so its
 * counts can be read from `finding_severity_counts` (kept exact by triggers) instead of counted.
 */
export function answerableFromSummary(filter: NormalisedFilter): boolean {
  return (
    filter.text === undefined &&
    filter.cwe === undefined &&
    filter.verdict === undefined &&
    filter.status === undefined &&
    filter.edited === undefined &&
    filter.origin === undefined
  );
}

/** Non-zero findings per report and severity from `finding_severity_counts`, restricted like `filter`. */
export async function severitySummary(
  manager: EntityManager,
  filter: NormalisedFilter,
  where?: FindingWhere,
): Promise<SeveritySummaryRow[]> {
  const params: unknown[] = [];
  const conditions = ['c.findings > 0'];
  if (!filter.includeArchived) conditions.push('(c.report_key = 0 OR NOT r.archived)');
  if (filter.severity) {
    params.push(filter.severity);
    conditions.push(`c.severity = $${params.length}::finding_severity`);
  }
  if (where?.reportIds) {
    params.push(where.reportIds);
    conditions.push(`c.report_key = ANY($${params.length}::int[])`);
  }
  return manager.query(
    `SELECT c.report_key AS "reportKey", c.severity::text AS severity, c.findings::int AS findings
     FROM finding_severity_counts c LEFT JOIN reports r ON r.id = c.report_key
     WHERE ${conditions.join(' AND ')}`,
    params,
  );
}
