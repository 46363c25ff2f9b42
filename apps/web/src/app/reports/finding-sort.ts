import { SEVERITIES, type FindingRow } from '@corpus-chat/contracts';

/** Columns of the Findings table that sort its page. */
export type FindingSortKey = 'id' | 'title' | 'severity' | 'report' | 'cwe' | 'cvss' | 'verdict' | 'status';

export const FINDING_COLUMNS: readonly { key: FindingSortKey; label: string; num?: boolean }[] = [
  { key: 'id', label: '#', num: true },
  { key: 'title', label: $localize`:@@chart.byTitle:Title` },
  { key: 'severity', label: $localize`:@@chart.bySeverity:Severity` },
  { key: 'report', label: $localize`:@@reports.colReport:Report` },
  { key: 'cwe', label: 'CWE' },
  { key: 'cvss', label: 'CVSS', num: true },
  { key: 'verdict', label: $localize`:@@chart.byVerdict:Verdict` },
  { key: 'status', label: $localize`:@@reports.colStatus:Status` },
];

/** A sorted column's `aria-sort` (null on the other columns). */
export function ariaSort(
  sort: { key: string; dir: 'asc' | 'desc' } | null,
  key: string,
): 'ascending' | 'descending' | null {
  return sort?.key === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : null;
}

/** The arrow after a sortable column's label: ↕ until it sorts the table, then its direction. */
export function sortArrow(sort: { key: string; dir: 'asc' | 'desc' } | null, key: string): string {
  return sort?.key !== key ? '↕' : sort.dir === 'asc' ? '▲' : '▼';
}

/** A row's value in a column: severities by rank (critical first), missing values last whatever the order. */
function valueOf(row: FindingRow, key: FindingSortKey): string | number | null {
  switch (key) {
    case 'id':
      return row.id;
    case 'title':
      return row.title;
    case 'severity':
      return SEVERITIES.indexOf(row.severity);
    case 'report':
      return row.reportFilename;
    case 'cwe':
      return row.cwe[0] ?? null;
    case 'cvss':
      return row.cvssBaseScore;
    case 'verdict':
      return row.latestVerdict;
    case 'status':
      return row.status;
  }
}

/**
 * `rows` ordered by `sort` (a copy; `null` keeps the API's order). Text compares by locale with
 * numbers inside it in numeric order; ties keep the API's order; empty cells go last.
 */
export function sortFindingRows(
  rows: readonly FindingRow[],
  sort: { key: FindingSortKey; dir: 'asc' | 'desc' } | null,
): FindingRow[] {
  if (!sort) return [...rows];
  const sign = sort.dir === 'asc' ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index, value: valueOf(row, sort.key) }))
    .sort((a, b) => {
      if (a.value === null || b.value === null)
        return a.value === b.value ? a.index - b.index : a.value === null ? 1 : -1;
      const c =
        typeof a.value === 'number' && typeof b.value === 'number'
          ? a.value - b.value
          : String(a.value).localeCompare(String(b.value), undefined, { numeric: true, sensitivity: 'base' });
      return c * sign || a.index - b.index;
    })
    .map((x) => x.row);
}
