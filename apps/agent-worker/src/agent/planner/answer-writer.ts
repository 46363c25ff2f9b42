/**
 * One writer for the planner's answers in every language: the facts, their order and the tool
 * names are decided here once; the words come from a language table (`answer-english.ts`,
 * `answer-russian.ts`). Report file names, CWE ids and tool names stay as the tools return them.
 */
import {
  SEVERITIES,
  VERDICT_STATUSES,
  type AppliedFilter,
  type ComputedScope,
  type CorpusOverview,
  type CountFindingsByResult,
  type CountGroup,
  type FindingDetail,
  type FindingFilter,
  type ListedGroups,
  type ReportStatus,
  type ReportSummary,
  type ScanComparison,
  type SearchFindingsResult,
  type Severity,
  type TriageStatus,
  type VerdictStatus,
} from '@corpus-chat/contracts';
import { breakdownRows, followUpSegments, rankableGroups, type FollowUpWords } from './answer-rows';
import { cut, md } from './answer-text';
import type { PlannedQuestion, PlannedScope, Unapplied } from './question-plan';
import type { ComparisonPlan } from './scan-comparison';

/** A count the planner computed from several exact counts (see `PlannerRunner`). */
export interface ScopedCount {
  /** The answer. */
  total: number;
  /** The base filter as the query layer applied it (report file name resolved, text widened). */
  filter: AppliedFilter;
  scope: ComputedScope;
  /** Per severity counted: matches of the filter, and of the filter plus the exclusion (when one is set). */
  bySeverity?: { severity: Severity; count: number; excluded: number }[];
  /** For `scope.has`: findings matching the filter, and those of them without any CWE id / verdict. */
  presence?: { all: number; none: number };
}

type GroupBy = CountFindingsByResult['groupBy'];
interface Options {
  scope?: ComputedScope;
  note?: string;
}

/** The texts a language gives the writer: labels, sentence templates, and the answers that carry no count. */
export interface AnswerLanguage {
  num(n: number): string;
  /** `n` findings, agreeing ("1 finding", "5 находок"). */
  findings(n: number): string;
  quote(s: string): string;
  severity(s: Severity): string;
  severityList(set: readonly Severity[]): string;
  verdict(v: VerdictStatus | 'none'): string;
  reportStatus(s: ReportStatus): string;
  /** Each part of a scope in words, keyed like `scopeParts`. */
  scope: {
    severity(label: string): string;
    text(quoted: string): string;
    report(name: string): string;
    format(format: string): string;
    scanner(quoted: string): string;
    archived: string;
    verdict(v: VerdictStatus): string;
    status(s: TriageStatus): string;
    edited?: Record<string, string>;
    exclude(parts: string[]): string;
    has(key: 'cwe' | 'verdict', present: boolean): string;
  };
  /** `[class name, its CWE ids]` → " (the text also matches …)". */
  classNote(classes: [string, string][]): string;
  followUp: FollowUpWords & { note(segments: string[]): string };
  countHead(total: number, scope: string): string;
  countShown(total: number, shown: number): string;
  scopedCount(c: ScopedCount, note?: string): string;
  cweLabel(g: { key: string; label: string }): string;
  /** A group's label when the language words it (severities, verdicts, statuses), else undefined. */
  groupValue?(groupBy: GroupBy, key: string): string | undefined;
  grouped(groupBy: GroupBy, how: string): string;
  howSeverities: string;
  howExclude: string;
  topEmpty(groupBy: GroupBy, scope: string, total: number): string;
  topOne(groupBy: GroupBy, scope: string, first: string, count: number, next?: [string, number]): string;
  topMany(groupBy: GroupBy, scope: string, n: number, ties: boolean): string;
  topFooter(groupBy: GroupBy, total: number, groups: number): string;
  breakdownHead(groupBy: GroupBy, scope: string, total: number): string;
  breakdownMore(groupBy: GroupBy, hidden: number): string;
  cweNote: string;
  reportCount(reports: ReportSummary[]): string;
  noReports: string;
  reportListHead(n: number): string;
  /** "- … and 5 more" under a list of reports. */
  moreReports(n: number): string;
  noFilter: string;
  reportsWithHead(reports: number, scope: string, total: number): string;
  overview: {
    head(reports: number, findings: number): string;
    bySeverity: string;
    verdicts: string;
    largest: string;
  };
  detail: {
    finding: string;
    severity: string;
    report: string;
    byHand: string;
    none: string;
    verdict: string;
    versions: string;
    affected: string;
    impact: string;
  };
  share(part: SearchFindingsResult, whole: SearchFindingsResult): string;
  comparison(plan: ComparisonPlan, c: ScanComparison): string;
  outOfScope(reason: 'write' | 'unknown'): string;
  tooLong(length: number, max: number): string;
  noPrevious: string;
  unsupported(parts: Unapplied[], understood: PlannedQuestion): string;
  reportHint(hint: { text: string; loose: boolean }, matches: string[]): string;
  /** A tool failed (`error` is its message): no number. */
  failed(error: string): string;
  comparisonFailed(error: string): string;
  noSuchFinding(id: number): string;
  /** "Show the third one" when the previous answer listed `shown` findings. */
  fewerFindings(shown: number): string;
  fewerGroups(listed: ListedGroups): string;
  titleNotFilter(label: string): string;
  fromRanking(label: string): string;
  unknownReport(name: string): string;
  listOneSeverity: string;
  /** A word the vocabulary does not know (a product, a library, a CVE), searched as text. */
  searchedText(term: string): string;
}

/** Each part of a scope in words, keyed by the kind of part (so follow-ups can tell replaced from kept). */
export function scopeParts(
  L: AnswerLanguage,
  f: FindingFilter | AppliedFilter,
  scope?: ComputedScope,
): Map<string, string> {
  const w = L.scope;
  const parts = new Map<string, string>();
  if (f.severity) parts.set('severity', w.severity(L.severity(f.severity)));
  else if (scope?.severities) parts.set('severity', w.severity(L.severityList(scope.severities)));
  if (f.text) parts.set('text', w.text(L.quote(f.text)));
  const reportFilename = (f as AppliedFilter).reportFilename ?? f.reportName;
  if (reportFilename) parts.set('report', w.report(md(reportFilename)));
  else if (f.reportId != null) parts.set('report', w.report(`#${f.reportId}`));
  if (f.format) parts.set('format', w.format(f.format));
  if (f.scanner) parts.set('scanner', w.scanner(L.quote(f.scanner)));
  if (f.includeArchived) parts.set('archived', w.archived);
  if (f.cwe != null) parts.set('cwe', `CWE-${f.cwe}`);
  if (f.verdict) parts.set('verdict', w.verdict(f.verdict));
  if (f.status) parts.set('status', w.status(f.status));
  if (f.edited && w.edited) parts.set('edited', w.edited[f.edited]);
  if (scope?.exclude) parts.set('exclude', w.exclude([...scopeParts(L, scope.exclude).values()]));
  if (scope?.has) parts.set('has', w.has(scope.has.key, scope.has.present));
  return parts;
}

/** The filter and scope in words ("severity critical, text 'XSS', report x.sarif"), or '' for none. */
export const scopePhrase = (L: AnswerLanguage, f: FindingFilter | AppliedFilter, scope?: ComputedScope) =>
  [...scopeParts(L, f, scope).values()].join(', ');

/** " (the text also matches the SQL injection class: CWE-89)" when the query layer widened the text search. */
export function classNote(L: AnswerLanguage, f: AppliedFilter): string {
  if (!f.weaknessClasses?.length) return '';
  return L.classNote(f.weaknessClasses.map((c) => [md(c.name), c.cwe.map((id) => `CWE-${id}`).join(', ')]));
}

/**
 * How a follow-up used the previous answer, truthfully: which parts the new question replaced,
 * which it added and which it kept from before.
 */
function followUpNote(L: AnswerLanguage, previous: PlannedScope, asked: PlannedScope, merged: PlannedScope) {
  const parts = (p: PlannedScope) => scopeParts(L, p.filter, p.scope);
  return L.followUp.note(followUpSegments(parts(previous), parts(merged), parts(asked), L.followUp));
}

/**
 * Answer to "how many findings …" / "list findings …" from one search_findings call: the exact
 * total, then every row of the call (the caller's `limit` decides how many are listed, so the
 * list, the tool card's "N of TOTAL" and the follow-up ids agree).
 */
function countAnswer(L: AnswerLanguage, r: SearchFindingsResult, opts: { note?: string } = {}): string {
  const scope = scopePhrase(L, r.filter);
  const head = L.countHead(r.total, scope && `${scope}${classNote(L, r.filter)}`);
  const lines = [opts.note ? `${head} ${opts.note}` : head];
  if (r.rows.length) {
    lines.push('', L.countShown(r.total, r.rows.length));
    for (const row of r.rows)
      lines.push(
        `- #${row.id} ${md(row.title)} (${L.severity(row.severity)}${row.reportFilename ? `, ${md(row.reportFilename)}` : ''})`,
      );
  }
  return lines.join('\n');
}

const groupLabel = (L: AnswerLanguage, groupBy: GroupBy, g: { key: string; label: string }) =>
  groupBy === 'cwe' ? L.cweLabel(g) : (L.groupValue?.(groupBy, g.key) ?? md(g.label));

/** How the counts of a grouped answer were obtained, for its last line. */
function groupedSource(L: AnswerLanguage, r: CountFindingsByResult, scope?: ComputedScope): string {
  const how = [
    scope?.severities && r.groupBy !== 'severity' ? L.howSeverities : '',
    scope?.exclude ? L.howExclude : '',
  ]
    .filter(Boolean)
    .join(', ');
  return L.grouped(r.groupBy, how);
}

/** The groups a top-`n` answer lists: the first `n` with a finding, and every group tied with the n-th. */
export function rankedGroups(r: CountFindingsByResult, n: number): CountGroup[] {
  const groups = rankableGroups(r);
  if (!groups.length) return [];
  const cut = groups[Math.min(n, groups.length) - 1].count;
  return groups.filter((g, i) => i < n || g.count === cut);
}

/** Answer to "which report has the most …" / "top N reports or CWEs by …", ties at the boundary included. */
function topAnswer(L: AnswerLanguage, r: CountFindingsByResult, n: number, opts: Options = {}): string {
  const scope = scopePhrase(L, r.filter, opts.scope);
  const groups = rankableGroups(r);
  const note = opts.note ? ` ${opts.note}` : '';
  if (!groups.length) return `${L.topEmpty(r.groupBy, scope, r.total)}${note}`;
  const top = rankedGroups(r, n);
  const label = (g: CountGroup) => groupLabel(L, r.groupBy, g);
  const lines: string[] = [];
  if (n === 1 && top.length === 1) {
    const next = groups[1];
    lines.push(L.topOne(r.groupBy, scope, label(top[0]), top[0].count, next && [label(next), next.count]));
  } else {
    lines.push(L.topMany(r.groupBy, scope, n, top.length > n));
    top.forEach((g, i) => lines.push(`${i + 1}. **${label(g)}**: ${L.num(g.count)}`));
  }
  lines[0] += note;
  lines.push('', `${groupedSource(L, r, opts.scope)} ${L.topFooter(r.groupBy, r.total, groups.length)}`);
  return lines.join('\n');
}

/** Answer to "breakdown by severity / CWE / verdict / report": every severity and verdict listed, zeros included. */
function breakdownAnswer(L: AnswerLanguage, r: CountFindingsByResult, opts: Options = {}): string {
  const lines = [L.breakdownHead(r.groupBy, scopePhrase(L, r.filter, opts.scope), r.total)];
  if (opts.note) lines[0] += ` ${opts.note}`;
  lines.push(
    ...breakdownRows(r, opts.scope, {
      severity: (s) => L.severity(s),
      verdict: (v) => L.verdict(v),
      group: (g) => groupLabel(L, r.groupBy, g),
      count: (n) => L.num(n),
      more: (hidden) => L.breakdownMore(r.groupBy, hidden),
      cweNote: L.cweNote,
    }),
  );
  lines.push('', groupedSource(L, r, opts.scope));
  return lines.join('\n');
}

/** Answer to "list the reports". */
function reportListAnswer(L: AnswerLanguage, reports: ReportSummary[]): string {
  if (!reports.length) return L.noReports;
  const lines = [L.reportListHead(reports.length)];
  for (const r of reports.slice(0, 100)) {
    const sev = SEVERITIES.filter((s) => r.bySeverity[s])
      .map((s) => `${L.severity(s)} ${L.num(r.bySeverity[s])}`)
      .join(', ');
    lines.push(
      `- #${r.id} **${md(r.filename)}** (${r.format}, ${L.reportStatus(r.status)}): ${L.findings(r.findingCount)}${sev ? ` — ${sev}` : ''}`,
    );
  }
  if (reports.length > 100) lines.push(L.moreReports(reports.length - 100));
  return lines.join('\n');
}

/** Answer to "how many reports have critical findings". */
function reportsWithAnswer(L: AnswerLanguage, r: CountFindingsByResult, opts: Options = {}): string {
  const groups = r.groups.filter((g) => g.count > 0);
  const scope = scopePhrase(L, r.filter, opts.scope) || L.noFilter;
  const lines = [L.reportsWithHead(groups.length, scope, r.total)];
  if (opts.note) lines[0] += ` ${opts.note}`;
  for (const g of groups.slice(0, 20)) lines.push(`- ${md(g.label)}: ${L.num(g.count)}`);
  if (groups.length > 20) lines.push(L.moreReports(groups.length - 20));
  lines.push('', groupedSource(L, r, opts.scope));
  return lines.join('\n');
}

/** Answer to "give me an overview". */
function overviewAnswer(L: AnswerLanguage, o: CorpusOverview): string {
  const w = L.overview;
  const lines = [
    w.head(o.reports.total, o.findings.total),
    '',
    `${w.bySeverity}${SEVERITIES.map((s) => `${L.severity(s)} ${L.num(o.findings.bySeverity[s])}`).join(', ')}.`,
    `${w.verdicts}${VERDICT_STATUSES.map((v) => `${L.verdict(v)} ${L.num(o.verdicts[v] ?? 0)}`).join(', ')}.`,
  ];
  const top = [...o.perReport].sort((a, b) => b.total - a.total).slice(0, 5);
  if (top.length) {
    lines.push('', w.largest);
    for (const r of top) lines.push(`- ${md(r.filename)}: ${L.num(r.total)}`);
  }
  return lines.join('\n');
}

/** Answer to "show finding N". */
function detailAnswer(L: AnswerLanguage, f: FindingDetail): string {
  const w = L.detail;
  const c = f.current;
  const lines = [`**${w.finding} #${f.id}: ${md(c.title)}**`, ''];
  lines.push(
    `- ${w.severity}: ${L.severity(c.severity)}${c.cvss?.base_score != null ? ` (CVSS ${c.cvss.base_score})` : ''}`,
  );
  lines.push(`- ${w.report}: ${f.reportFilename ? md(f.reportFilename) : w.byHand}`);
  lines.push(`- CWE: ${c.cwe.length ? c.cwe.map((id) => `CWE-${id}`).join(', ') : w.none}`);
  lines.push(`- ${w.verdict}: ${f.latestVerdict ? L.verdict(f.latestVerdict.status) : w.none}`);
  lines.push(`- ${w.versions}: ${f.versionCount}`);
  if (c.affectedEndpoints.length)
    lines.push(
      `- ${w.affected}: ${c.affectedEndpoints.slice(0, 5).map(md).join(', ')}${c.affectedEndpoints.length > 5 ? ', …' : ''}`,
    );
  // The scanner's own text stays as it was written.
  if (c.description) lines.push('', md(cut(c.description, 800)));
  if (c.impact) lines.push('', `${w.impact}: ${md(cut(c.impact, 400))}`);
  return lines.join('\n');
}

/** Every text the planner answers with, in one language: the same facts, worded for the operator. */
export function writerFor(L: AnswerLanguage) {
  return {
    ...L,
    count: (r: SearchFindingsResult, opts?: { note?: string }) => countAnswer(L, r, opts),
    scopedCount: (c: ScopedCount, note?: string) => L.scopedCount(c, note),
    top: (r: CountFindingsByResult, n: number, opts?: Options) => topAnswer(L, r, n, opts),
    breakdown: (r: CountFindingsByResult, opts?: Options) => breakdownAnswer(L, r, opts),
    reportList: (reports: ReportSummary[]) => reportListAnswer(L, reports),
    reportsWith: (r: CountFindingsByResult, opts?: Options) => reportsWithAnswer(L, r, opts),
    overview: (o: CorpusOverview) => overviewAnswer(L, o),
    detail: (f: FindingDetail) => detailAnswer(L, f),
    followUpNote: (previous: PlannedScope, asked: PlannedScope, merged: PlannedScope) =>
      followUpNote(L, previous, asked, merged),
  };
}
export type AnswerWriter = ReturnType<typeof writerFor>;
