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
const VALUE_OF: Record<FindingSortKey, (row: FindingRow) => string | number | null> = {
  id: (row) => row.id,
  title: (row) => row.title,
  severity: (row) => SEVERITIES.indexOf(row.severity),
  report: (row) => row.reportFilename,
  cwe: (row) => row.cwe[0] ?? null,
  cvss: (row) => row.cvssBaseScore,
  verdict: (row) => row.latestVerdict,
  status: (row) => row.status,
};

/** Numbers by value, text by locale with the numbers inside it in numeric order ("r2" before "r10"). */
export function compareCells(a: string | number, b: string | number): number {
  return typeof a === 'number' && typeof b === 'number'
    ? a - b
    : String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
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
    .map((row, index) => ({ row, index, value: VALUE_OF[sort.key](row) }))
    .sort((a, b) => {
      if (a.value === null || b.value === null)
        return a.value === b.value ? a.index - b.index : a.value === null ? 1 : -1;
      return compareCells(a.value, b.value) * sign || a.index - b.index;
    })
    .map((x) => x.row);
}
