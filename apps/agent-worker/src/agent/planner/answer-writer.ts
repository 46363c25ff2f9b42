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
  type ReportSummary,
  type SearchFindingsResult,
  type Severity,
} from '@corpus-chat/contracts';
import { breakdownRows, followUpSegments, rankableGroups, reportTally } from './answer-rows';
import type { PlannedScope } from './question-plan';
import { cut, md, quote } from './answer-text';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const statusLabel = (s: string) => s.replace('_', ' ');
const EDITED_LABEL: Record<string, string> = {
  any: 'edited by operators',
  severity: 're-rated by operators (severity changed since import)',
};
const VERDICT_LABEL: Record<string, string> = {
  still_open: 'still open',
  fixed: 'fixed',
  inconclusive: 'inconclusive',
  none: 'no verdict',
};

/** "critical or high", "critical, high or medium" (most severe first). */
function severityList(set: readonly Severity[]): string {
  const ordered = SEVERITIES.filter((s) => set.includes(s));
  if (ordered.length <= 1) return ordered.join('');
  return `${ordered.slice(0, -1).join(', ')} or ${ordered.at(-1)}`;
}

/** Each part of a scope in words, keyed by the kind of part (so follow-ups can tell replaced from kept). */
export function scopeParts(f: FindingFilter | AppliedFilter, scope?: ComputedScope): Map<string, string> {
  const parts = new Map<string, string>();
  if (f.severity) parts.set('severity', `severity ${f.severity}`);
  else if (scope?.severities) parts.set('severity', `severity ${severityList(scope.severities)}`);
  if (f.text) parts.set('text', `text ${quote(f.text)}`);
  const reportFilename = (f as AppliedFilter).reportFilename ?? f.reportName;
  if (reportFilename) parts.set('report', `report ${md(reportFilename)}`);
  else if (f.reportId != null) parts.set('report', `report #${f.reportId}`);
  if (f.format) parts.set('format', `format ${f.format}`);
  if (f.scanner) parts.set('scanner', `scanner ${quote(f.scanner)}`);
  if (f.includeArchived) parts.set('archived', 'archived reports included');
  if (f.cwe != null) parts.set('cwe', `CWE-${f.cwe}`);
  if (f.verdict) parts.set('verdict', `verdict ${VERDICT_LABEL[f.verdict]}`);
  if (f.status) parts.set('status', `triage status ${statusLabel(f.status)}`);
  if (f.edited) parts.set('edited', EDITED_LABEL[f.edited]);
  if (scope?.exclude)
    parts.set('exclude', `excluding ${[...scopeParts(scope.exclude).values()].join(' and ')}`);
  if (scope?.has)
    parts.set(
      'has',
      `${scope.has.present ? 'with' : 'without'} ${scope.has.key === 'cwe' ? 'a CWE id' : 'a verdict'}`,
    );
  return parts;
}

/** The filter and scope in words ("severity critical, text 'XSS', report x.sarif"), or '' for none. */
export function scopePhrase(f: FindingFilter | AppliedFilter, scope?: ComputedScope): string {
  return [...scopeParts(f, scope).values()].join(', ');
}

/** " (the text also matches the SQL injection class: CWE-89)" when the query layer widened the text search. */
function classNote(f: AppliedFilter): string {
  if (!f.weaknessClasses?.length) return '';
  const classes = f.weaknessClasses
    .map((c) => `the ${md(c.name)} class: ${c.cwe.map((id) => `CWE-${id}`).join(', ')}`)
    .join('; ');
  return ` (the text also matches ${classes})`;
}

/**
 * How a follow-up used the previous answer, truthfully: which parts the new question replaced
 * ("text 'XSS' instead of text 'SQL injection'"), which it added ("narrowed to severity high") and
 * which it kept from before.
 */
export function followUpNote(previous: PlannedScope, asked: PlannedScope, merged: PlannedScope): string {
  const segments = followUpSegments(
    scopeParts(previous.filter, previous.scope),
    scopeParts(merged.filter, merged.scope),
    scopeParts(asked.filter, asked.scope),
    {
      instead: (phrase, before) => `${phrase} instead of ${before}`,
      dropped: (phrase) => `dropped ${phrase}`,
      added: (phrases) => `narrowed to ${phrases}`,
      kept: (phrases) => `kept ${phrases}`,
    },
  );
  return segments.length
    ? `Follow-up on the previous question: ${segments.join('; ')}.`
    : 'Follow-up on the previous question, with the same filter.';
}

/**
 * Answer to "how many findings …" / "list findings …" from one search_findings call: the exact
 * total, then every row of the call (the caller's `limit` decides how many are listed, so the
 * list, the tool card's "N of TOTAL" and the follow-up ids agree).
 */
export function countAnswer(r: SearchFindingsResult, opts: { note?: string } = {}): string {
  const f = r.filter;
  const lines: string[] = [];
  const scope = scopePhrase(f);
  const head = !scope
    ? `There are **${r.total}** findings in total. Exact total from search_findings, no filter.`
    : `**${r.total}** ${r.total === 1 ? 'finding matches' : 'findings match'} ${scope}${classNote(f)}. Exact total from search_findings.`;
  lines.push(opts.note ? `${head} ${opts.note}` : head);
  if (r.rows.length) {
    const shown = r.rows.length;
    lines.push('');
    lines.push(r.total > shown ? `The first ${shown}:` : shown === 1 ? 'It is:' : 'They are:');
    for (const row of r.rows.slice(0, shown)) {
      lines.push(
        `- #${row.id} ${md(row.title)} (${row.severity}${row.reportFilename ? `, ${md(row.reportFilename)}` : ''})`,
      );
    }
  }
  return lines.join('\n');
}

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

/** What an exclusion removes, as a verb phrase ("do not match text 'X'", "are not in report R"). */
function exclusionPhrase(e: FindingFilter): string {
  if (e.text) return `do not match text ${quote(e.text)}`;
  if (e.verdict)
    return e.verdict === 'fixed'
      ? 'are not marked fixed'
      : `do not have the verdict ${VERDICT_LABEL[e.verdict]}`;
  if (e.status) return `do not have the triage status ${statusLabel(e.status)}`;
  if (e.reportName || e.reportId != null)
    return `are not in report ${e.reportName ? md(e.reportName) : `#${e.reportId}`}`;
  if (e.cwe != null) return `are not tagged CWE-${e.cwe}`;
  return 'are excluded';
}

/** The findings an exclusion subtracts, after their number ("that match it", "marked fixed"). */
function excludedPhrase(e: FindingFilter): string {
  if (e.text) return 'that match it';
  if (e.verdict)
    return e.verdict === 'fixed' ? 'marked fixed' : `with the verdict ${VERDICT_LABEL[e.verdict]}`;
  if (e.status) return `with the triage status ${statusLabel(e.status)}`;
  if (e.reportName || e.reportId != null) return 'in that report';
  if (e.cwe != null) return `tagged CWE-${e.cwe}`;
  return 'excluded';
}

/** Answer to a count of a set of severities, an exclusion ("not about X") or findings with(out) any CWE id or verdict. */
export function scopedCountAnswer(c: ScopedCount, note?: string): string {
  const base = scopePhrase(c.filter);
  const subject = `**${c.total}** ${c.total === 1 ? 'finding' : 'findings'}${base ? ` with ${base}${classNote(c.filter)}` : ''}`;
  const lines: string[] = [];
  if (c.scope.has && c.presence) {
    const what = c.scope.has.key === 'cwe' ? 'CWE id' : 'verdict';
    const groupedBy = c.scope.has.key === 'cwe' ? 'CWE' : 'verdict';
    lines.push(
      c.scope.has.present
        ? `${subject} ${c.total === 1 ? 'has' : 'have'} at least one ${what}: ${c.presence.all} in all, minus ${c.presence.none} with none.`
        : `${subject} ${c.total === 1 ? 'has' : 'have'} no ${what}, out of ${c.presence.all}.`,
    );
    lines.push('', `Exact counts from count_findings_by, grouped by ${groupedBy}.`);
  } else {
    const rows = c.bySeverity ?? [];
    const counted = rows.map((r) => r.severity);
    const all = counted.length === SEVERITIES.length || !!c.filter.severity;
    const missing = SEVERITIES.filter((s) => !counted.includes(s));
    const sevWords = all
      ? ''
      : missing.length === 1 && counted.length > 2
        ? `are not ${missing[0]}`
        : `are ${severityList(counted)}`;
    const excl = c.scope.exclude ? exclusionPhrase(c.scope.exclude) : '';
    const predicate = [sevWords, excl].filter(Boolean).join(' and ');
    if (c.scope.exclude) {
      const sum = (k: 'count' | 'excluded') => rows.reduce((n, r) => n + r[k], 0);
      const terms = all ? '' : ` (${rows.map((r) => `${r.severity} ${r.count - r.excluded}`).join(' + ')})`;
      lines.push(
        `${subject} ${predicate}${terms}: ${sum('count')} in all, minus ${sum('excluded')} ${excludedPhrase(c.scope.exclude)}.`,
      );
      lines.push(
        '',
        'Both are exact counts from count_findings_by (grouped by severity), one without and one with the excluded part.',
      );
    } else {
      lines.push(`${subject} ${predicate}: ${rows.map((r) => `${r.severity} ${r.count}`).join(' + ')}.`);
      lines.push(
        '',
        'Each part is an exact count from count_findings_by (grouped by severity), added up; search_findings takes one severity at a time.',
      );
    }
  }
  if (note) lines[0] += ` ${note}`;
  return lines.join('\n');
}

/** Label of a CWE group: `CWE-79` (or `CWE-79 Cross-site Scripting` when the query layer gave a name), `no CWE`. */
function cweLabel(g: { key: string; label: string }): string {
  if (g.key === 'none') return 'no CWE';
  const id = `CWE-${md(g.key)}`;
  const label = (g.label ?? '').trim();
  if (!label || label === g.key || label.toUpperCase() === `CWE-${g.key}`) return id;
  if (label.toUpperCase().startsWith(`CWE-${g.key}`)) return md(label);
  return `${id} ${md(label)}`;
}

/** What a group of `count_findings_by` is, in words. */
const GROUP_NOUN: Record<string, string> = {
  report: 'report',
  cwe: 'CWE',
  format: 'report format',
  title: 'finding title',
  severity: 'severity',
  verdict: 'verdict',
  status: 'triage status',
};
const groupLabel = (groupBy: string, g: { key: string; label: string }) =>
  groupBy === 'cwe' ? cweLabel(g) : md(g.label);

/** How the counts of a grouped answer were obtained, for its last line. */
function groupedSource(r: CountFindingsByResult, scope?: ComputedScope): string {
  const how = [
    scope?.severities && r.groupBy !== 'severity' ? 'one call per severity, added up' : '',
    scope?.exclude ? 'minus the same counts for the excluded findings' : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `Exact counts from count_findings_by, grouped by ${GROUP_NOUN[r.groupBy]}${how ? ` (${how})` : ''}.`;
}

/** The groups a top-`n` answer lists: the first `n` with a finding, and every group tied with the n-th. */
export function rankedGroups(r: CountFindingsByResult, n: number): CountGroup[] {
  const groups = rankableGroups(r);
  if (!groups.length) return [];
  const cut = groups[Math.min(n, groups.length) - 1].count;
  return groups.filter((g, i) => i < n || g.count === cut);
}

/** Answer to "which report has the most …" / "top N reports or CWEs by …", ties at the boundary included. */
export function topAnswer(
  r: CountFindingsByResult,
  n: number,
  opts: { scope?: ComputedScope; note?: string } = {},
): string {
  const what = GROUP_NOUN[r.groupBy];
  const scope = scopePhrase(r.filter, opts.scope);
  const groups = rankableGroups(r);
  if (!groups.length)
    return `No findings match ${scope ? scope : 'anything in the corpus'} (${r.total} in total), so no ${what} has any.${opts.note ? ` ${opts.note}` : ''}`;
  const top = rankedGroups(r, n);
  const filterText = scope ? `findings with ${scope}` : 'findings';
  const lines: string[] = [];
  if (n === 1 && top.length === 1) {
    const next = groups[1];
    lines.push(
      `The ${what} with the most ${filterText} is **${groupLabel(r.groupBy, top[0])}** with **${top[0].count}**` +
        (next ? ` (next: ${groupLabel(r.groupBy, next)} with ${next.count}).` : '.'),
    );
  } else {
    lines.push(
      n === 1
        ? `These ${what}s tie for the most ${filterText}:`
        : `Top ${n} ${what}s by number of ${filterText}${top.length > n ? ' (ties included)' : ''}:`,
    );
    top.forEach((g, i) => lines.push(`${i + 1}. **${groupLabel(r.groupBy, g)}**: ${g.count}`));
  }
  if (opts.note) lines[0] += ` ${opts.note}`;
  lines.push('');
  const among =
    r.groupBy === 'title'
      ? `; the ${plural(groups.length, 'commonest title')} were compared`
      : ` in ${plural(groups.length, what)}`;
  lines.push(`${groupedSource(r, opts.scope)} ${plural(r.total, 'finding')}${among}.`);
  return lines.join('\n');
}

/** Answer to "breakdown by severity / CWE / verdict / report": every severity and verdict listed, zeros included. */
export function breakdownAnswer(
  r: CountFindingsByResult,
  opts: { scope?: ComputedScope; note?: string } = {},
): string {
  const scope = scopePhrase(r.filter, opts.scope);
  const lines = [
    `Findings by ${r.groupBy === 'cwe' ? 'CWE' : r.groupBy === 'status' ? 'triage status' : r.groupBy}${scope ? ` (${scope})` : ''}, ${plural(r.total, 'finding')} in total:`,
  ];
  if (opts.note) lines[0] += ` ${opts.note}`;
  lines.push(
    ...breakdownRows(r, opts.scope, {
      severity: (s) => s,
      verdict: (v) => VERDICT_LABEL[v],
      group: (g) => groupLabel(r.groupBy, g),
      count: String,
      more: (hidden) => `and ${hidden} more ${r.groupBy === 'cwe' ? 'CWE ids' : 'reports'}`,
      cweNote: 'A finding with several CWE ids counts once under each.',
    }),
  );
  lines.push('', groupedSource(r, opts.scope));
  return lines.join('\n');
}

/** Answer to "how many reports (are there)". */
export function reportCountAnswer(reports: ReportSummary[]): string {
  const { byStatus, findings } = reportTally(reports);
  const statuses = byStatus.map(([s, n]) => `${n} ${s}`).join(', ');
  return `There are **${reports.length}** reports${statuses ? ` (${statuses})` : ''}, holding ${findings} findings. From list_all_reports; archived reports are not counted.`;
}

/** Answer to "list the reports". */
export function reportListAnswer(reports: ReportSummary[]): string {
  if (!reports.length)
    return 'There are no reports yet (list_all_reports returned none). Import a scanner file on the Reports page.';
  const lines = [
    `There are **${reports.length}** reports (from list_all_reports; archived reports not shown):`,
  ];
  for (const r of reports.slice(0, 100)) {
    const sev = SEVERITIES.filter((s) => r.bySeverity[s])
      .map((s) => `${s} ${r.bySeverity[s]}`)
      .join(', ');
    lines.push(
      `- #${r.id} **${md(r.filename)}** (${r.format}, ${r.status}): ${plural(r.findingCount, 'finding')}${sev ? ` — ${sev}` : ''}`,
    );
  }
  if (reports.length > 100) lines.push(`- … and ${reports.length - 100} more`);
  return lines.join('\n');
}

/** Answer to "how many reports have critical findings". */
export function reportsWithAnswer(
  r: CountFindingsByResult,
  opts: { scope?: ComputedScope; note?: string } = {},
): string {
  const groups = r.groups.filter((g) => g.count > 0);
  const scope = scopePhrase(r.filter, opts.scope) || 'no filter';
  const lines = [
    `**${groups.length}** ${groups.length === 1 ? 'report has' : 'reports have'} findings with ${scope}, ${plural(r.total, 'such finding')} in all.`,
  ];
  if (opts.note) lines[0] += ` ${opts.note}`;
  for (const g of groups.slice(0, 20)) lines.push(`- ${md(g.label)}: ${g.count}`);
  if (groups.length > 20) lines.push(`- … and ${groups.length - 20} more`);
  lines.push('', groupedSource(r, opts.scope));
  return lines.join('\n');
}

/** Answer to "give me an overview". */
export function overviewAnswer(o: CorpusOverview): string {
  const lines = [
    `The corpus holds **${o.reports.total}** reports and **${o.findings.total}** findings (from get_corpus_overview).`,
    '',
    `Findings by severity: ${SEVERITIES.map((s) => `${s} ${o.findings.bySeverity[s]}`).join(', ')}.`,
    `Verdicts: ${VERDICT_STATUSES.map((v) => `${VERDICT_LABEL[v]} ${o.verdicts[v] ?? 0}`).join(', ')}.`,
  ];
  const top = [...o.perReport].sort((a, b) => b.total - a.total).slice(0, 5);
  if (top.length) {
    lines.push('', 'Largest reports:');
    for (const r of top) lines.push(`- ${md(r.filename)}: ${r.total}`);
  }
  return lines.join('\n');
}

/** Answer to "show finding N". */
export function detailAnswer(f: FindingDetail): string {
  const c = f.current;
  const lines = [`**Finding #${f.id}: ${md(c.title)}**`, ''];
  lines.push(`- Severity: ${c.severity}${c.cvss?.base_score != null ? ` (CVSS ${c.cvss.base_score})` : ''}`);
  lines.push(`- Report: ${f.reportFilename ? md(f.reportFilename) : 'none (entered by hand)'}`);
  lines.push(`- CWE: ${c.cwe.length ? c.cwe.map((id) => `CWE-${id}`).join(', ') : 'none'}`);
  lines.push(`- Latest verdict: ${f.latestVerdict ? VERDICT_LABEL[f.latestVerdict.status] : 'none'}`);
  lines.push(`- Versions: ${f.versionCount}`);
  if (c.affectedEndpoints.length)
    lines.push(
      `- Affected: ${c.affectedEndpoints.slice(0, 5).map(md).join(', ')}${c.affectedEndpoints.length > 5 ? ', …' : ''}`,
    );
  if (c.description) lines.push('', md(cut(c.description, 800)));
  if (c.impact) lines.push('', `Impact: ${md(cut(c.impact, 400))}`);
  return lines.join('\n');
}
