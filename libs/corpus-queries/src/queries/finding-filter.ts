import type { EntityManager } from 'typeorm';
import { SEVERITIES, type AppliedFilter, type Severity } from '@corpus-chat/contracts';
import { QueryValidationError, type NormalisedFilter } from './query-validation';
import { SqlParams } from './sql-params';
import { namedWeaknessClasses } from './weakness-classes';

/**
 * The current version's search vector of finding `f`, exactly as indexed by `ix_findings_search`
 * (the expression must match the index's for the index to be used).
 */
export const SEARCH_VECTOR = 'finding_search_vector(f.current_version_id)';

/**
 * The current version's search vector of finding `f` when its severity is `severity`, else NULL:
 * exactly the expression of the index `ix_findings_search_<severity>` (migration
 * CorpusSearchBySeverity), whose statistics tell the planner how a term is spread over severities.
 * `severity` is one of the fixed enum values (checked), never caller text.
 */
export function severitySearchVector(severity: Severity): string {
  return `(CASE WHEN f.severity = ${severityLiteral(severity)} THEN ${SEARCH_VECTOR} END)`;
}

/**
 * The CWE ids of finding `f` when its severity is `severity`, else NULL: exactly the expression of
 * `ix_findings_cwe_<severity>`.
 */
export function severityCwe(severity: Severity): string {
  return `(CASE WHEN f.severity = ${severityLiteral(severity)} THEN f.cwe END)`;
}

/**
 * `'<severity>'::finding_severity`, a literal (an index expression or a partial index predicate
 * only matches literals). Only the enum's own values are accepted.
 *
 * @throws Error for anything but one of SEVERITIES.
 */
export function severityLiteral(severity: Severity): string {
  if (!SEVERITIES.includes(severity)) throw new Error(`not a severity: ${String(severity)}`);
  return `'${severity}'::finding_severity`;
}

/** A WHERE clause over `findings f` plus the filter as applied (echoed to callers). */
export interface FindingWhere {
  sql: string;
  /**
   * The same clause with the search vector expression replaced by `vector` (for instance
   * {@link severitySearchVector}) and, in a weakness-class widening, `f.cwe` replaced by `cwe`;
   * same parameters as `sql`, which is `sqlWith({ vector: SEARCH_VECTOR, cwe: 'f.cwe' })`.
   */
  sqlWith(exprs: { vector: string; cwe: string }): string;
  /** Whether the clause has a full-text condition. */
  hasText: boolean;
  /**
   * The full-text condition's parts: the texts given to `websearch_to_tsquery('english', …)` (ORed)
   * and, for a weakness-class widening, the CWE ids ORed with them (`f.cwe && cwe`).
   */
  search?: { phrases: string[]; cwe?: number[] };
  /** Whether the clause is `NOT f.archived` and the full-text condition, nothing else. */
  liveTextOnly: boolean;
  params: SqlParams;
  applied: AppliedFilter;
  /** The reports the filter is restricted to (from `reportId` and/or `reportName`), if any. */
  reportIds?: number[];
}

/**
 * Builds the parameterised WHERE clause over current findings (`findings f`, whose severity and
 * CWE ids are copies of the current version's) for a normalised filter. All conditions are ANDed:
 *
 * - archived reports' findings are excluded unless `includeArchived`;
 * - `text`: IMPORT-RULES full-text search over the current version's generated `search_vector`,
 *   `… @@ websearch_to_tsquery('english', text)`;
 *   when the text names weakness classes, the query is ORed with the full-text query of every
 *   name and alias of those classes, and with `f.cwe && <their CWE ids>`;
 * - `reportName` matches report file names case-insensitively (every live report with that name).
 *
 * @throws QueryValidationError when `reportId` or `reportName` names no report.
 */
export async function buildFindingWhere(
  manager: EntityManager,
  filter: NormalisedFilter,
): Promise<FindingWhere> {
  const params = new SqlParams();
  const conditions: (string | ((exprs: { vector: string; cwe: string }) => string))[] = [];
  const applied: AppliedFilter = {};
  let reportIds: number[] | undefined;

  if (!filter.includeArchived) conditions.push('NOT f.archived');
  else applied.includeArchived = true;

  let search: FindingWhere['search'];
  if (filter.text !== undefined) {
    applied.text = filter.text;
    const classes = namedWeaknessClasses(filter.text);
    if (classes.length === 0) {
      search = { phrases: [filter.text] };
      const query = `websearch_to_tsquery('english', ${params.add(filter.text)})`;
      conditions.push(({ vector }) => `${vector} @@ ${query}`);
    } else {
      const phrases = [
        ...new Set(
          [filter.text, ...classes.flatMap((c) => [c.name, ...c.aliases])].map((p) => p.toLowerCase()),
        ),
      ];
      const tsquery = phrases.map((p) => `websearch_to_tsquery('english', ${params.add(p)})`).join(' || ');
      const cwe = [...new Set(classes.flatMap((c) => c.cwe))].sort((a, b) => a - b);
      const cweIds = params.add(cwe);
      search = { phrases, cwe };
      conditions.push(({ vector, cwe }) => `(${vector} @@ (${tsquery}) OR ${cwe} && ${cweIds}::int[])`);
      applied.weaknessClasses = classes.map((c) => ({ name: c.name, cwe: [...c.cwe] }));
    }
  }
  if (filter.severity !== undefined) {
    conditions.push(`f.severity = ${params.add(filter.severity)}::finding_severity`);
    applied.severity = filter.severity;
  }
  if (filter.reportId !== undefined) {
    const rows: { filename: string }[] = await manager.query(`SELECT filename FROM reports WHERE id = $1`, [
      filter.reportId,
    ]);
    if (rows.length === 0) throw new QueryValidationError('reportId', `no report has id ${filter.reportId}`);
    conditions.push(`f.report_id = ${params.add(filter.reportId)}`);
    reportIds = [filter.reportId];
    applied.reportId = filter.reportId;
    applied.reportFilename = rows[0].filename;
  }
  if (filter.reportName !== undefined) {
    const rows: { id: number; filename: string; archived: boolean }[] = await manager.query(
      `SELECT id, filename, archived FROM reports WHERE lower(filename) = lower($1) ORDER BY id`,
      [filter.reportName],
    );
    const usable = filter.includeArchived ? rows : rows.filter((r) => !r.archived);
    if (usable.length === 0) {
      throw new QueryValidationError(
        'reportName',
        rows.length
          ? `report "${rows[0].filename}" is archived; archived reports are excluded`
          : `no report is named "${filter.reportName}" (use a report's file name, e.g. from list_all_reports)`,
      );
    }
    conditions.push(`f.report_id = ANY(${params.add(usable.map((r) => r.id))}::int[])`);
    const named = usable.map((r) => r.id);
    reportIds = reportIds ? reportIds.filter((id) => named.includes(id)) : named;
    applied.reportName = filter.reportName;
    applied.reportFilename = usable[0].filename;
    if (applied.reportId === undefined && usable.length === 1) applied.reportId = usable[0].id;
  }
  if (filter.cwe !== undefined) {
    conditions.push(`f.cwe @> ARRAY[${params.add(filter.cwe)}::int]`);
    applied.cwe = filter.cwe;
  }
  if (filter.verdict !== undefined) {
    conditions.push(`f.latest_verdict = ${params.add(filter.verdict)}`);
    applied.verdict = filter.verdict;
  }
  if (filter.status !== undefined) {
    conditions.push(`f.status = ${params.add(filter.status)}`);
    applied.status = filter.status;
  }
  const sqlWith = (exprs: { vector: string; cwe: string }) =>
    conditions.length ? conditions.map((c) => (typeof c === 'string' ? c : c(exprs))).join(' AND ') : 'TRUE';
  return {
    sql: sqlWith({ vector: SEARCH_VECTOR, cwe: 'f.cwe' }),
    sqlWith,
    hasText: filter.text !== undefined,
    search,
    liveTextOnly: search !== undefined && !filter.includeArchived && conditions.length === 2,
    params,
    applied,
    reportIds,
  };
}
