/** The pieces a finding page is read with: the page's columns, its row select and row shape. */
import type { FindingRow } from '@corpus-chat/contracts';

/** A row as Postgres returns it: `createdAt` is a Date until `toRow`. */
export type RowRecord = Omit<FindingRow, 'createdAt'> & { createdAt: Date };

export const PAGE_COLUMNS =
  'f.id, f.severity, f.report_id, f.cwe, f.latest_verdict, f.status, f.created_at, f.current_version_id';

/**
 * The row fields of a page `p` (ordered by severity, id) joined with versions; the report's file
 * name is a per-row lookup (a page is at most 50 rows: the planner otherwise hashes all reports).
 */
export const ROW_SELECT = `SELECT p.id, fv.title, p.severity::text AS severity, p.report_id AS "reportId",
         (SELECT r.filename FROM reports r WHERE r.id = p.report_id) AS "reportFilename", p.cwe,
         CASE WHEN jsonb_typeof(fv.cvss -> 'base_score') = 'number' THEN (fv.cvss ->> 'base_score')::float8 END AS "cvssBaseScore",
         p.latest_verdict AS "latestVerdict", p.status, p.created_at AS "createdAt"
       FROM page p
       JOIN finding_versions fv ON fv.id = p.current_version_id`;

export const toRow = (r: RowRecord): FindingRow => ({ ...r, createdAt: new Date(r.createdAt).toISOString() });
