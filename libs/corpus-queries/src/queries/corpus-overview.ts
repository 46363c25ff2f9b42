import type { EntityManager } from 'typeorm';
import {
  REPORT_STATUSES,
  SEVERITIES,
  TRIAGE_STATUSES,
  VERDICT_STATUSES,
  type CorpusOverview,
  type ReportStatus,
  type SeverityCounts,
  type TriageStatus,
  type VerdictStatus,
} from '@corpus-chat/contracts';
import { cachedQuery, type QueryOptions } from './query-cache';
import { severitySummary } from './severity-summary';

/** Every severity at zero. */
export function zeroSeverityCounts(): SeverityCounts {
  return { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
}

/** Totals of the live corpus, every severity, status and verdict listed. Cached per corpus version. */
export async function corpusOverview(
  manager: EntityManager,
  options?: QueryOptions,
): Promise<CorpusOverview> {
  return cachedQuery(manager, 'corpusOverview', {}, options, async () => {
    const reports: { id: number; filename: string; format: string; status: ReportStatus }[] =
      await manager.query(`SELECT id, filename, format, status FROM reports WHERE NOT archived ORDER BY id`);
    const groups = await severitySummary(manager, { includeArchived: false });
    const verdicts: { status: VerdictStatus; count: number }[] = await manager.query(
      `SELECT latest_verdict AS status, count(*)::int AS count FROM findings
       WHERE NOT archived AND latest_verdict IS NOT NULL GROUP BY latest_verdict`,
    );
    const statuses: { status: TriageStatus; count: number }[] = await manager.query(
      `SELECT status, count(*)::int AS count FROM findings WHERE NOT archived GROUP BY status`,
    );

    const byStatus = Object.fromEntries(REPORT_STATUSES.map((s) => [s, 0])) as Record<ReportStatus, number>;
    for (const r of reports) byStatus[r.status]++;
    const bySeverity = zeroSeverityCounts();
    const perReportCounts = new Map<number, SeverityCounts>();
    for (const g of groups) {
      bySeverity[g.severity] += g.findings;
      if (g.reportKey === 0) continue;
      const c = perReportCounts.get(g.reportKey) ?? zeroSeverityCounts();
      c[g.severity] += g.findings;
      perReportCounts.set(g.reportKey, c);
    }
    const verdictCounts = Object.fromEntries(VERDICT_STATUSES.map((s) => [s, 0])) as Record<
      VerdictStatus,
      number
    >;
    for (const v of verdicts) verdictCounts[v.status] = v.count;
    const statusCounts = Object.fromEntries(TRIAGE_STATUSES.map((s) => [s, 0])) as Record<
      TriageStatus,
      number
    >;
    for (const s of statuses) statusCounts[s.status] = s.count;

    return {
      reports: { total: reports.length, byStatus },
      findings: { total: SEVERITIES.reduce((n, s) => n + bySeverity[s], 0), bySeverity },
      verdicts: verdictCounts,
      statuses: statusCounts,
      perReport: reports.map((r) => {
        const c = perReportCounts.get(r.id) ?? zeroSeverityCounts();
        return {
          id: r.id,
          filename: r.filename,
          format: r.format,
          total: SEVERITIES.reduce((n, s) => n + c[s], 0),
          bySeverity: c,
        };
      }),
    };
  });
}
