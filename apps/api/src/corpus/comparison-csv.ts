import type { ComparedFinding, ScanComparison } from '@corpus-chat/contracts';

/** Header of the comparison CSV; one row per new finding (of the report) and per fixed one (of the baseline). */
export const COMPARISON_CSV_COLUMNS = [
  'change',
  'finding_id',
  'title',
  'severity',
  'report_id',
  'report',
] as const;

/**
 * One RFC 4180 CSV field; text starting with `=`, `+`, `-`, `@`, tab or CR gets a leading `'`
 * (OWASP CSV Injection): titles come from scanner files.
 */
export function csvField(value: string | number): string {
  let s = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The comparison as CSV lines (CRLF-terminated, header first), produced one at a time for streaming. */
export function* comparisonCsvLines(c: ScanComparison): Generator<string> {
  yield `${COMPARISON_CSV_COLUMNS.join(',')}\r\n`;
  const rows = (change: 'new' | 'fixed', findings: ComparedFinding[], report: ScanComparison['report']) =>
    findings.map(
      (f) => `${[change, f.id, f.title, f.severity, report.id, report.filename].map(csvField).join(',')}\r\n`,
    );
  yield* rows('new', c.newFindings, c.report);
  yield* rows('fixed', c.fixedFindings, c.baseline);
}
