import type { EntityManager } from 'typeorm';
import {
  SEVERITIES,
  TRIAGE_STATUSES,
  VERDICT_STATUSES,
  countFindingsByListSchema,
  type CountFindingsByArgs,
  type CountFindingsByResult,
  type CountGroup,
} from '@corpus-chat/contracts';
import { buildFindingWhere } from './finding-filter';
import { cachedQuery, type QueryOptions } from './query-cache';
import { parseArgs, type NormalisedFilter } from './query-validation';
import { countMatching } from './search-findings';
import { answerableFromSummary, severitySummary } from './severity-summary';

const VERDICT_LABELS: Record<string, string> = {
  still_open: 'still open',
  fixed: 'fixed',
  inconclusive: 'inconclusive',
  none: 'no verdict',
};

/** Title groups returned at most: a corpus has thousands of distinct titles, a ranking needs the top. */
export const TITLE_GROUPS_CAP = 50;

/**
 * Exact counts of current findings matching `filter` per `groupBy`, most first. Severity, verdict
 * and status list every value (zeros too); title keeps the {@link TITLE_GROUPS_CAP} largest.
 * `total` counts distinct findings (one with two CWE ids is in two groups). Cached per corpus version.
 *
 * @throws QueryValidationError for an unknown `groupBy` or a bad filter value.
 */
export async function countFindingsBy(
  manager: EntityManager,
  input: CountFindingsByArgs,
  options?: QueryOptions,
): Promise<CountFindingsByResult> {
  const { groupBy, filter: asked = {} } = parseArgs(countFindingsByListSchema, input);
  const filter: NormalisedFilter = { ...asked, includeArchived: asked.includeArchived ?? false };
  return cachedQuery(manager, 'countFindingsBy', { groupBy, filter }, options, async () => {
    const where = await buildFindingWhere(manager, filter);
    let groups: CountGroup[];
    let total: number;
    let order: (g: CountGroup) => number = () => 0;

    const summary =
      answerableFromSummary(filter) && (groupBy === 'severity' || groupBy === 'report')
        ? await severitySummary(manager, filter, where)
        : null;

    if (groupBy === 'severity') {
      const rows: { key: string; count: number }[] = summary
        ? summary.map((s) => ({ key: s.severity, count: s.findings }))
        : await manager.query(
            `SELECT f.severity::text AS key, count(*)::int AS count FROM findings f WHERE ${where.sql} GROUP BY f.severity`,
            where.params.values,
          );
      const byKey = new Map<string, number>();
      for (const r of rows) byKey.set(r.key, (byKey.get(r.key) ?? 0) + r.count);
      groups = SEVERITIES.map((s) => ({ key: s, label: s, count: byKey.get(s) ?? 0 }));
      order = (g) => SEVERITIES.indexOf(g.key as (typeof SEVERITIES)[number]);
      total = groups.reduce((n, g) => n + g.count, 0);
    } else if (groupBy === 'verdict') {
      const rows: { key: string; count: number }[] = await manager.query(
        `SELECT coalesce(f.latest_verdict, 'none') AS key, count(*)::int AS count FROM findings f WHERE ${where.sql} GROUP BY 1`,
        where.params.values,
      );
      const byKey = new Map(rows.map((r) => [r.key, r.count]));
      const keys = [...VERDICT_STATUSES, 'none'];
      groups = keys.map((k) => ({ key: k, label: VERDICT_LABELS[k], count: byKey.get(k) ?? 0 }));
      order = (g) => keys.indexOf(g.key);
      total = groups.reduce((n, g) => n + g.count, 0);
    } else if (groupBy === 'status') {
      const rows: { key: string; count: number }[] = await manager.query(
        `SELECT f.status::text AS key, count(*)::int AS count FROM findings f WHERE ${where.sql} GROUP BY 1`,
        where.params.values,
      );
      const byKey = new Map(rows.map((r) => [r.key, r.count]));
      groups = TRIAGE_STATUSES.map((k) => ({ key: k, label: k.replace('_', ' '), count: byKey.get(k) ?? 0 }));
      order = (g) => TRIAGE_STATUSES.indexOf(g.key as (typeof TRIAGE_STATUSES)[number]);
      total = groups.reduce((n, g) => n + g.count, 0);
    } else if (groupBy === 'report') {
      const rows: { reportId: number | null; filename: string | null; count: number }[] = summary
        ? await manager.query(
            `SELECT NULLIF(g.report_key, 0) AS "reportId", r.filename, g.count
             FROM (SELECT unnest($1::int[]) AS report_key, unnest($2::int[]) AS count) g LEFT JOIN reports r ON r.id = g.report_key`,
            (() => {
              const per = new Map<number, number>();
              for (const s of summary) per.set(s.reportKey, (per.get(s.reportKey) ?? 0) + s.findings);
              return [[...per.keys()], [...per.values()]];
            })(),
          )
        : await manager.query(
            `SELECT g.report_id AS "reportId", r.filename, g.count
             FROM (SELECT f.report_id, count(*)::int AS count FROM findings f WHERE ${where.sql} GROUP BY f.report_id) g
             LEFT JOIN reports r ON r.id = g.report_id`,
            where.params.values,
          );
      groups = rows.map((r) =>
        r.reportId === null
          ? { key: 'none', label: '(no report: entered by hand)', count: r.count }
          : { key: String(r.reportId), label: r.filename ?? `report ${r.reportId}`, count: r.count },
      );
      total = groups.reduce((n, g) => n + g.count, 0);
    } else if (groupBy === 'format') {
      const rows: { key: string | null; count: number }[] = await manager.query(
        `SELECT r.format AS key, count(*)::int AS count FROM findings f LEFT JOIN reports r ON r.id = f.report_id WHERE ${where.sql} GROUP BY r.format`,
        where.params.values,
      );
      groups = rows.map((r) =>
        r.key === null
          ? { key: 'none', label: '(no report: entered by hand)', count: r.count }
          : { key: r.key, label: r.key, count: r.count },
      );
      total = groups.reduce((n, g) => n + g.count, 0);
    } else if (groupBy === 'title') {
      const rows: { title: string; count: number }[] = await manager.query(
        `SELECT fv.title, count(*)::int AS count FROM findings f JOIN finding_versions fv ON fv.id = f.current_version_id
         WHERE ${where.sql} GROUP BY fv.title ORDER BY count(*) DESC, fv.title LIMIT ${TITLE_GROUPS_CAP}`,
        where.params.values,
      );
      const matching = await countMatching(manager, where);
      groups = rows.map((r) => ({ key: r.title, label: r.title, count: r.count }));
      total = matching;
    } else {
      const rows: { cwe: number | null; count: number }[] = await manager.query(
        `SELECT c.cwe, count(*)::int AS count
         FROM findings f LEFT JOIN LATERAL unnest(f.cwe) AS c(cwe) ON true
         WHERE ${where.sql} GROUP BY c.cwe`,
        where.params.values,
      );
      const matching = await countMatching(manager, where);
      groups = rows.map((r) =>
        r.cwe === null
          ? { key: 'none', label: 'no CWE', count: r.count }
          : { key: String(r.cwe), label: `CWE-${r.cwe}`, count: r.count },
      );
      total = matching;
    }
    groups.sort((a, b) => b.count - a.count || order(a) - order(b) || a.label.localeCompare(b.label));
    return { groupBy, total, groups, filter: where.applied };
  });
}
