import type { EntityManager } from 'typeorm';
import type { ReportStatus, ReportSummary, Severity, SeverityCounts } from '@corpus-chat/contracts';
import { zeroSeverityCounts } from './corpus-overview';
import { cachedQuery, type QueryOptions } from './query-cache';
import { QueryValidationError } from './query-validation';

interface ReportRecord {
  id: number;
  filename: string;
  format: string;
  status: ReportStatus;
  findingCount: number;
  archived: boolean;
  error: string | null;
  model: string | null;
  docMetadata: Record<string, unknown>;
  createdAt: Date;
}

/** Report summaries (with findings by severity, from `finding_severity_counts`) for the given ids, or every report. */
export async function reportSummaries(
  manager: EntityManager,
  opts: { includeArchived: boolean; ids?: number[] },
): Promise<ReportSummary[]> {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (!opts.includeArchived) conditions.push('NOT r.archived');
  if (opts.ids) {
    params.push(opts.ids);
    conditions.push(`r.id = ANY($${params.length}::int[])`);
  }
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  const reports: ReportRecord[] = await manager.query(
    `SELECT r.id, r.filename, r.format, r.status, r.finding_count AS "findingCount", r.archived, r.error, r.model,
            r.doc_metadata AS "docMetadata", r.created_at AS "createdAt"
     FROM reports r ${where} ORDER BY r.id`,
    params,
  );
  const groups: { reportId: number; severity: Severity; count: number }[] = await manager.query(
    `SELECT c.report_key AS "reportId", c.severity::text AS severity, c.findings::int AS count
     FROM finding_severity_counts c JOIN reports r ON r.id = c.report_key ${where}`,
    params,
  );
  const counts = new Map<number, SeverityCounts>();
  for (const g of groups) {
    const c = counts.get(g.reportId) ?? zeroSeverityCounts();
    c[g.severity] = g.count;
    counts.set(g.reportId, c);
  }
  return reports.map((r) => ({
    ...r,
    bySeverity: counts.get(r.id) ?? zeroSeverityCounts(),
    createdAt: new Date(r.createdAt).toISOString(),
  }));
}

/**
 * Every report (oldest first) with its status, finding count and findings by severity; archived
 * ones only with `includeArchived`. Cached per corpus version.
 */
export async function listReports(
  manager: EntityManager,
  input: { includeArchived?: boolean } = {},
  options?: QueryOptions,
): Promise<ReportSummary[]> {
  const inc = input?.includeArchived;
  if (inc !== undefined && inc !== null && typeof inc !== 'boolean') {
    throw new QueryValidationError('includeArchived', 'includeArchived must be true or false');
  }
  const includeArchived = inc === true;
  return cachedQuery(manager, 'listReports', { includeArchived }, options, () =>
    reportSummaries(manager, { includeArchived }),
  );
}
