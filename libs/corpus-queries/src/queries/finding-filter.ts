import type { EntityManager } from 'typeorm';
import { type AppliedFilter } from '@corpus-chat/contracts';
import { QueryValidationError, type NormalisedFilter } from './query-validation';
import { SqlParams } from './sql-params';
import { namedWeaknessClasses } from './weakness-classes';

/**
 * The current version's search vector of finding `f`, exactly as indexed by `ix_findings_search`
 * (the expression must match the index's for the index to be used).
 */
export const SEARCH_VECTOR = 'finding_search_vector(f.current_version_id)';

/** A WHERE clause over `findings f` plus the filter as applied (echoed to callers). */
export interface FindingWhere {
  sql: string;
  /**
   * The same clause with the text condition's search vector written as `vector` (same parameters);
   * `sql` is `sqlWith(SEARCH_VECTOR)`.
   */
  sqlWith(vector: string): string;
  params: SqlParams;
  applied: AppliedFilter;
  /** The reports the filter is restricted to (from `reportId` and/or `reportName`), if any. */
  reportIds?: number[];
}

/**
 * The parameterised WHERE clause over `findings f` for a normalised filter, conditions ANDed.
 * Archived reports are excluded unless `includeArchived`; `text` is IMPORT-RULES full-text search,
 * ORed with the named weakness classes' names and CWE ids; `reportName`, `format` and `scanner`
 * resolve to report ids; `edited: 'severity'` keeps findings re-rated since version 1.
 *
 * @throws QueryValidationError when `reportId` or `reportName` names no report.
 */
export async function buildFindingWhere(
  manager: EntityManager,
  filter: NormalisedFilter,
): Promise<FindingWhere> {
  const params = new SqlParams();
  const conditions: (string | ((vector: string) => string))[] = [];
  const applied: AppliedFilter = {};
  let reportIds: number[] | undefined;

  if (!filter.includeArchived) conditions.push('NOT f.archived');
  else applied.includeArchived = true;

  if (filter.text !== undefined) {
    applied.text = filter.text;
    const classes = namedWeaknessClasses(filter.text);
    if (classes.length === 0) {
      const query = `websearch_to_tsquery('english', ${params.add(filter.text)})`;
      conditions.push((vector) => `${vector} @@ ${query}`);
    } else {
      const phrases = [
        ...new Set(
          [filter.text, ...classes.flatMap((c) => [c.name, ...c.aliases])].map((p) => p.toLowerCase()),
        ),
      ];
      const tsquery = phrases.map((p) => `websearch_to_tsquery('english', ${params.add(p)})`).join(' || ');
      const cwe = [...new Set(classes.flatMap((c) => c.cwe))].sort((a, b) => a - b);
      const cweIds = params.add(cwe);
      conditions.push((vector) => `(${vector} @@ (${tsquery}) OR f.cwe && ${cweIds}::int[])`);
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
  if (filter.format !== undefined || filter.scanner !== undefined) {
    const rows: { id: number }[] = await manager.query(
      `SELECT id FROM reports
       WHERE ($1::text IS NULL OR format = $1) AND ($2::text IS NULL OR strpos(lower(doc_metadata->'tool'->>'name'), lower($2)) > 0)
       ORDER BY id`,
      [filter.format ?? null, filter.scanner ?? null],
    );
    const ids = rows.map((r) => r.id);
    conditions.push(`f.report_id = ANY(${params.add(ids)}::int[])`);
    reportIds = reportIds ? reportIds.filter((id) => ids.includes(id)) : ids;
    if (filter.format !== undefined) applied.format = filter.format;
    if (filter.scanner !== undefined) applied.scanner = filter.scanner;
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
  if (filter.edited !== undefined) {
    conditions.push(
      filter.edited === 'any'
        ? `EXISTS (SELECT 1 FROM finding_versions e WHERE e.finding_id = f.id AND e.origin = 'edit')`
        : `EXISTS (SELECT 1 FROM finding_versions v1 WHERE v1.finding_id = f.id AND v1.version = 1 AND v1.severity <> f.severity)`,
    );
    applied.edited = filter.edited;
  }
  if (filter.origin !== undefined) {
    conditions.push(
      `EXISTS (SELECT 1 FROM finding_versions o WHERE o.finding_id = f.id AND o.version = 1 AND o.origin = ${params.add(filter.origin)})`,
    );
    applied.origin = filter.origin;
  }
  const sqlWith = (vector: string) =>
    conditions.length ? conditions.map((c) => (typeof c === 'string' ? c : c(vector))).join(' AND ') : 'TRUE';
  return {
    sql: sqlWith(SEARCH_VECTOR),
    sqlWith,
    params,
    applied,
    reportIds,
  };
}
