import type { EntityManager } from 'typeorm';
import type {
  ComparedFinding,
  ComparedReport,
  SameTargetScans,
  ScanComparison,
  ScanComparisonCounts,
  ScanComparisonErrorCode,
  Severity,
} from '@corpus-chat/contracts';

/** Scan comparison (IMPORT-RULES.md "Finding identity and scan comparison"). */

/** Why two reports were not compared; `message` names the reports (and targets) so a person can act on it. */
export class ScanComparisonError extends Error {
  constructor(
    readonly code: ScanComparisonErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ScanComparisonError';
  }
}

/** A report by id (a number, or a text of digits with an optional `#`) or by file name (case-insensitive). */
export type ReportRef = number | string;

interface ReportRow {
  id: number;
  filename: string;
  format: string;
  archived: boolean;
  scanTarget: string[] | null;
  scannedAt: Date | null;
  findingCount: number;
  csvLayout: string | null;
  toolNames: string[] | null;
}

const REPORT_COLUMNS = `id, filename, format, archived, scan_target AS "scanTarget", scanned_at AS "scannedAt",
  finding_count AS "findingCount", doc_metadata->>'csvLayout' AS "csvLayout", doc_metadata->'toolNames' AS "toolNames"`;

const view = (r: ReportRow): ComparedReport => ({
  id: r.id,
  filename: r.filename,
  format: r.format,
  scannedAt: r.scannedAt ? new Date(r.scannedAt).toISOString() : null,
  findingCount: r.findingCount,
});

/** `'x.json' (zap scan of http://a)`: how an error names a report. */
function named(r: ReportRow): string {
  const what = r.csvLayout
    ? `${r.format} ${r.csvLayout}`
    : r.toolNames?.length
      ? `${r.format} from ${r.toolNames.join(' + ')}`
      : r.format;
  return `'${r.filename}' (${what} scan of ${r.scanTarget?.length ? r.scanTarget.join(', ') : 'no named target'})`;
}

async function resolveReport(manager: EntityManager, ref: ReportRef): Promise<ReportRow> {
  const digits = typeof ref === 'number' ? String(ref) : /^\s*#?\s*(\d{1,9})\s*$/.exec(ref)?.[1];
  if (digits !== undefined) {
    const rows: ReportRow[] = await manager.query(`SELECT ${REPORT_COLUMNS} FROM reports WHERE id = $1`, [
      Number(digits),
    ]);
    if (!rows.length) throw new ScanComparisonError('NOT_FOUND', `there is no report ${digits}`);
    return rows[0];
  }
  const name = String(ref).trim();
  const rows: ReportRow[] = await manager.query(
    `SELECT ${REPORT_COLUMNS} FROM reports WHERE lower(filename) = lower($1) AND NOT archived ORDER BY id LIMIT 2`,
    [name],
  );
  if (!rows.length) throw new ScanComparisonError('NOT_FOUND', `no report is named '${name}'`);
  if (rows.length > 1)
    throw new ScanComparisonError(
      'AMBIGUOUS',
      `several reports are named '${name}'; give the report's id instead (${rows.map((r) => r.id).join(', ')})`,
    );
  return rows[0];
}

/**
 * Scans of the same target (IMPORT-RULES): same format, same CSV layout, same set of SARIF tool
 * names, and equal non-empty target sets. `r` must name a target.
 */
async function scansOfTarget(manager: EntityManager, r: ReportRow): Promise<ReportRow[]> {
  return manager.query(
    `SELECT ${REPORT_COLUMNS} FROM reports
     WHERE format = $1 AND scan_target = $2::text[] AND status = 'ready' AND (NOT archived OR id = $5)
       AND doc_metadata->>'csvLayout' IS NOT DISTINCT FROM $3 AND doc_metadata->'toolNames' IS NOT DISTINCT FROM $4::jsonb
     ORDER BY scanned_at NULLS LAST, id`,
    [r.format, r.scanTarget, r.csvLayout, r.toolNames ? JSON.stringify(r.toolNames) : null, r.id],
  );
}

function sameTarget(a: ReportRow, b: ReportRow): boolean {
  return (
    a.format === b.format &&
    a.csvLayout === b.csvLayout &&
    JSON.stringify(a.toolNames ?? null) === JSON.stringify(b.toolNames ?? null) &&
    JSON.stringify(a.scanTarget) === JSON.stringify(b.scanTarget)
  );
}

/**
 * A report's scans of the same target, itself included, oldest first (unknown times last); other
 * archived reports left out.
 *
 * @throws ScanComparisonError `NOT_FOUND` for an unknown report.
 */
export async function sameTargetScans(manager: EntityManager, report: ReportRef): Promise<SameTargetScans> {
  const r = await resolveReport(manager, report);
  if (!r.scanTarget?.length) return { report: view(r), target: null, scans: [view(r)] };
  return { report: view(r), target: r.scanTarget, scans: (await scansOfTarget(manager, r)).map(view) };
}

/** The scan of the same target recorded just before `reportId`, which an import compares with; or null. */
export async function previousScan(manager: EntityManager, reportId: number): Promise<ComparedReport | null> {
  const r = await resolveReport(manager, reportId);
  if (!r.scanTarget?.length || !r.scannedAt) return null;
  const t = new Date(r.scannedAt).getTime();
  const earlier = (await scansOfTarget(manager, r)).filter(
    (s) => s.id !== r.id && s.scannedAt && new Date(s.scannedAt).getTime() < t,
  );
  const last = earlier
    .sort((x, y) => new Date(x.scannedAt!).getTime() - new Date(y.scannedAt!).getTime() || x.id - y.id)
    .pop();
  return last ? view(last) : null;
}

export interface CompareReportsArgs {
  /** The older report; when `ordered` is false, just one of the two. */
  baseline: ReportRef;
  /** The newer report; omitted: the latest scan of the baseline's target ("what is new since X"). */
  report?: ReportRef;
  /**
   * True (default) when the caller's words gave the order; false when two scans were named without
   * one: the earlier recorded scan time is then the baseline (equal or missing times: `ORDER_UNKNOWN`).
   */
  ordered?: boolean;
}

interface DiffRow {
  id: number;
  reportId: number;
  title: string;
  severity: Severity;
}

/**
 * Compares baseline A with report B as multisets of identities: per identity, new = max(b − a, 0),
 * fixed = max(a − b, 0), unchanged = min(a, b), the later findings by id being the new or fixed.
 *
 * @throws ScanComparisonError when the two cannot be compared (see its codes).
 */
export async function compareReports(
  manager: EntityManager,
  args: CompareReportsArgs,
): Promise<ScanComparison> {
  let a = await resolveReport(manager, args.baseline);
  if (!a.scanTarget?.length) {
    throw new ScanComparisonError(
      'NO_TARGET',
      `${named(a)} names no target, so it is a scan of no other report's target and is not compared`,
    );
  }
  let b: ReportRow;
  if (args.report === undefined) {
    const later = a.scannedAt
      ? (await scansOfTarget(manager, a)).filter(
          (s) => s.scannedAt && new Date(s.scannedAt) > new Date(a.scannedAt!),
        )
      : [];
    if (!later.length)
      throw new ScanComparisonError(
        'NO_LATER_SCAN',
        `no scan of ${a.scanTarget.join(', ')} was recorded after ${named(a)}`,
      );
    b = later[later.length - 1];
  } else b = await resolveReport(manager, args.report);
  if (a.id === b.id)
    throw new ScanComparisonError('SAME_REPORT', `'${a.filename}' is one report; name two scans to compare`);
  if (!b.scanTarget?.length) {
    throw new ScanComparisonError(
      'NO_TARGET',
      `${named(b)} names no target, so it is a scan of no other report's target and is not compared`,
    );
  }
  if (!sameTarget(a, b)) {
    throw new ScanComparisonError(
      'NOT_SAME_TARGET',
      `${named(a)} and ${named(b)} are not scans of the same target, so they are not compared`,
    );
  }
  let baselineBy: ScanComparison['baselineBy'] = 'caller';
  if (args.ordered === false) {
    const [ta, tb] = [
      a.scannedAt ? new Date(a.scannedAt).getTime() : null,
      b.scannedAt ? new Date(b.scannedAt).getTime() : null,
    ];
    if (ta === null || tb === null || ta === tb) {
      const why =
        ta === null || tb === null
          ? 'no recorded scan time tells which is older'
          : 'both have the same recorded scan time';
      throw new ScanComparisonError(
        'ORDER_UNKNOWN',
        `'${a.filename}' and '${b.filename}' are scans of the same target but ${why}; say which one is the baseline`,
      );
    }
    if (tb < ta) [a, b] = [b, a];
    baselineBy = 'scan_time';
  }

  // Findings without an identity (none from scanner imports) each count as their own identity.
  const rows: DiffRow[] = await manager.query(
    `WITH tagged AS (
       SELECT f.id, f.report_id, f.severity, fv.title, coalesce(f.identity_key, 'finding:' || f.id) AS k,
              row_number() OVER (PARTITION BY f.report_id, coalesce(f.identity_key, 'finding:' || f.id) ORDER BY f.id) AS nth
       FROM findings f JOIN finding_versions fv ON fv.id = f.current_version_id
       WHERE f.report_id IN ($1, $2)
     ), held AS (
       SELECT k, count(*) FILTER (WHERE report_id = $1) AS a, count(*) FILTER (WHERE report_id = $2) AS b FROM tagged GROUP BY k
     )
     SELECT t.id, t.report_id AS "reportId", t.title, t.severity
     FROM tagged t JOIN held h USING (k)
     WHERE (t.report_id = $2 AND t.nth > h.a) OR (t.report_id = $1 AND t.nth > h.b)
     ORDER BY t.id`,
    [a.id, b.id],
  );
  const pick = (reportId: number): ComparedFinding[] =>
    rows
      .filter((r) => r.reportId === reportId)
      .map((r) => ({ id: r.id, title: r.title, severity: r.severity }));
  const newFindings = pick(b.id);
  const fixedFindings = pick(a.id);
  const counts: ScanComparisonCounts = {
    new: newFindings.length,
    fixed: fixedFindings.length,
    unchanged: b.findingCount - newFindings.length,
  };
  return {
    baseline: view(a),
    report: view(b),
    target: a.scanTarget!,
    baselineBy,
    ...counts,
    newFindings,
    fixedFindings,
  };
}
