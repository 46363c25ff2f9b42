import type { FindingRow } from '@corpus-chat/contracts';
import { csvField } from './comparison-csv';

/** Header of the findings CSV, one row per finding, in `searchFindings` order. */
export const FINDINGS_CSV_COLUMNS = [
  'id',
  'title',
  'severity',
  'status',
  'report',
  'cwe',
  'cvss_base_score',
  'latest_verdict',
  'created_at',
] as const;

export const findingsCsvHeader = (): string => `${FINDINGS_CSV_COLUMNS.join(',')}\r\n`;

/** One finding as a CSV line (CRLF-terminated); CWE ids are `;`-separated, empty values empty. */
export function findingCsvLine(f: FindingRow): string {
  const cells = [
    f.id,
    f.title,
    f.severity,
    f.status,
    f.reportFilename ?? '',
    f.cwe.join(';'),
    f.cvssBaseScore ?? '',
    f.latestVerdict ?? '',
    f.createdAt,
  ];
  return `${cells.map(csvField).join(',')}\r\n`;
}

/** One finding as a JSON object with the CSV's fields (report file name, not the report id). */
export function findingJson(f: FindingRow): string {
  return JSON.stringify({
    id: f.id,
    title: f.title,
    severity: f.severity,
    status: f.status,
    reportFilename: f.reportFilename,
    cwe: f.cwe,
    cvssBaseScore: f.cvssBaseScore,
    latestVerdict: f.latestVerdict,
    createdAt: f.createdAt,
  });
}
