import { formatCount, formatSearch } from '@corpus-chat/corpus-queries';
import type { CountFindingsByResult, FindingRow, SearchFindingsResult } from '@corpus-chat/contracts';
import { verifyNumbers, type ProvenanceEvidence } from '../verification/number-provenance';

/** A search_findings call as the model sees it (the real tool formatting), `total` matches and the given rows. */
export function search(
  total: number,
  rows: Partial<FindingRow>[] = [],
  args: object = { limit: 5 },
): ProvenanceEvidence {
  const full: FindingRow[] = rows.map((r, i) => ({
    id: 1000 + i,
    title: `Finding ${'ABCDEFGHIJ'[i % 10]}`,
    severity: 'high',
    reportId: 1,
    reportFilename: 'dd__flawfinder.sarif',
    cwe: [],
    cvssBaseScore: null,
    latestVerdict: null,
    status: 'open',
    createdAt: '2026-11-30T10:00:00Z',
    ...r,
  }));
  const result: SearchFindingsResult = { total, rows: full, limit: 5, offset: 0, filter: {} };
  return { name: 'search_findings', args, content: JSON.stringify(formatSearch(result).model) };
}

/** A count_findings_by call as the model sees it. */
export function countBy(
  groupBy: CountFindingsByResult['groupBy'],
  groups: [string, number][],
  filter = {},
): ProvenanceEvidence {
  const result: CountFindingsByResult = {
    groupBy,
    total: groups.reduce((n, [, c]) => n + c, 0),
    groups: groups.map(([key, count]) => ({
      key,
      label: groupBy === 'cwe' && key !== 'none' ? `CWE-${key}` : key,
      count,
    })),
    filter,
  };
  return {
    name: 'count_findings_by',
    args: { groupBy, filter },
    content: JSON.stringify(formatCount(result).model),
  };
}

/** Counts per severity: 4,439 findings in all. */
export const SEVERITY_GROUPS: [string, number][] = [
  ['critical', 72],
  ['high', 333],
  ['medium', 2273],
  ['low', 588],
  ['info', 1173],
];

/** `verifyNumbers` of `answer` against `evidence`, for a question without numbers unless given. */
export const check = (
  answer: string,
  evidence: ProvenanceEvidence[] = [],
  userMessage = 'How many findings are there?',
) => verifyNumbers({ answer, userMessage, evidence });
