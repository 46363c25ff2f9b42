import {
  SEVERITIES,
  VERDICT_STATUSES,
  type ComputedScope,
  type CountFindingsByResult,
  type CountGroup,
  type ReportSummary,
  type Severity,
  type VerdictStatus,
} from '@corpus-chat/contracts';

/** Groups a breakdown lists one by one before it says how many more there are. */
const BREAKDOWN_CAP = 50;

/** A breakdown's wording in one language (`answer-languages.ts`). */
export interface BreakdownWords {
  severity: (s: Severity) => string;
  verdict: (v: VerdictStatus | 'none') => string;
  group: (g: CountGroup) => string;
  count: (n: number) => string;
  /** After `- … `: how many groups were not listed. */
  more: (hidden: number) => string;
  /** Last line of a CWE breakdown: how a finding with several CWE ids counts. */
  cweNote: string;
}

/**
 * The rows of a breakdown: every severity the scope shows and every verdict, zeros included (a zero
 * is an answer too); other groupings as the query layer ordered them, the first 50.
 */
export function breakdownRows(
  r: CountFindingsByResult,
  scope: ComputedScope | undefined,
  w: BreakdownWords,
): string[] {
  const byKey = new Map(r.groups.map((g) => [g.key, g.count]));
  const count = (key: string) => w.count(byKey.get(key) ?? 0);
  if (r.groupBy === 'severity') {
    const shown = scope?.severities ?? SEVERITIES;
    return SEVERITIES.filter((s) => shown.includes(s)).map((s) => `- ${w.severity(s)}: ${count(s)}`);
  }
  if (r.groupBy === 'verdict')
    return [...VERDICT_STATUSES, 'none' as const].map((v) => `- ${w.verdict(v)}: ${count(v)}`);
  const rows = r.groups.slice(0, BREAKDOWN_CAP).map((g) => `- ${w.group(g)}: ${w.count(g.count)}`);
  if (r.groups.length > BREAKDOWN_CAP) rows.push(`- … ${w.more(r.groups.length - BREAKDOWN_CAP)}`);
  if (r.groupBy === 'cwe') rows.push('', w.cweNote);
  return rows;
}

/** The groups a ranking compares: those with a finding, without "no CWE". */
export function rankableGroups(r: CountFindingsByResult): CountGroup[] {
  return r.groups.filter((g) => g.count > 0 && !(r.groupBy === 'cwe' && g.key === 'none'));
}

/** How many reports are in each import status (in the order first met) and how many findings they hold. */
export function reportTally(reports: readonly ReportSummary[]): {
  byStatus: [string, number][];
  findings: number;
} {
  const byStatus = new Map<string, number>();
  for (const r of reports) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  return { byStatus: [...byStatus], findings: reports.reduce((n, r) => n + r.findingCount, 0) };
}

/** A follow-up note's wording in one language. */
export interface FollowUpWords {
  instead: (phrase: string, before: string) => string;
  dropped: (phrase: string) => string;
  added: (phrases: string) => string;
  kept: (phrases: string) => string;
}

/**
 * What a follow-up did to the previous question's filter, part by part (maps keyed like
 * `scopeParts`): parts it replaced or dropped, parts it added, parts kept from before.
 */
export function followUpSegments(
  before: Map<string, string>,
  merged: Map<string, string>,
  asked: Map<string, string>,
  w: FollowUpWords,
): string[] {
  const replaced: string[] = [];
  const added: string[] = [];
  const kept: string[] = [];
  for (const [key, phrase] of merged) {
    const was = before.get(key);
    if (asked.has(key) && was !== undefined && was !== phrase) replaced.push(w.instead(phrase, was));
    else if (asked.has(key) && was === undefined) added.push(phrase);
    else kept.push(phrase);
  }
  for (const [key, phrase] of before) if (!merged.has(key)) replaced.push(w.dropped(phrase));
  const segments: string[] = [];
  if (replaced.length) segments.push(replaced.join(', '));
  if (added.length) segments.push(w.added(added.join(', ')));
  if (kept.length) segments.push(w.kept(kept.join(', ')));
  return segments;
}
