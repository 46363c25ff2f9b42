import {
  SEVERITIES,
  VERDICT_STATUSES,
  type AppliedFilter,
  type CorpusOverview,
  type CountFindingsByResult,
  type FindingDetail,
  type FindingFilter,
  type ReportSummary,
  type SearchFindingsResult,
} from '@corpus-chat/contracts';

/**
 * Escapes text that comes from the corpus or the operator for Markdown: the ASCII punctuation that
 * could open markup mid-line (links, images, HTML tags, emphasis with `*`, code, tables, strike) is
 * backslash-escaped (CommonMark §2.4), so a title like `<script>` or `[x](javascript:…)` renders as
 * literal text. `_` is left alone: intraword underscores never start emphasis, and report file names
 * (`dd__flawfinder.sarif`) stay searchable as written. Newlines become spaces.
 */
export function md(text: string | null | undefined): string {
  return (text ?? '').replace(/[\\`*[\]()<>!|~&]/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The filter in words, naming every part so the number can be checked. */
export function filterPhrase(f: FindingFilter | AppliedFilter): string {
  const parts: string[] = [];
  if (f.severity) parts.push(`severity=${f.severity}`);
  if (f.text) parts.push(`text='${md(f.text)}'`);
  const reportFilename = (f as AppliedFilter).reportFilename ?? f.reportName;
  if (reportFilename) parts.push(`report=${md(reportFilename)}`);
  else if (f.reportId != null) parts.push(`report id=${f.reportId}`);
  if (f.cwe != null) parts.push(`CWE-${f.cwe}`);
  if (f.verdict) parts.push(`verdict=${f.verdict}`);
  return parts.length ? parts.join(', ') : 'no filter';
}

/** "(the text also matched weakness class SQL injection: CWE-89)" when the query layer widened it. */
function classNote(f: AppliedFilter): string {
  if (!f.weaknessClasses?.length) return '';
  const classes = f.weaknessClasses.map((c) => `${md(c.name)} (${c.cwe.map((id) => `CWE-${id}`).join(', ')})`).join('; ');
  return ` The text search also matched the weakness class ${classes}.`;
}

/** Answer to "how many findings …" / "list findings …". */
export function countAnswer(r: SearchFindingsResult, opts: { list: boolean; followUp: boolean }): string {
  const f = r.filter;
  const lines: string[] = [];
  const scope = filterPhrase(f);
  if (scope === 'no filter') lines.push(`There are **${r.total}** findings in total (no filter; search_findings total ${r.total}).`);
  else lines.push(`**${r.total}** ${r.total === 1 ? 'finding matches' : 'findings match'} the filter ${scope}${opts.followUp ? ' (the previous filter narrowed)' : ''}: search_findings returned total ${r.total}.${classNote(f)}`);
  if (r.rows.length) {
    const shown = Math.min(r.rows.length, opts.list ? 20 : 5);
    lines.push('');
    lines.push(r.total > shown ? `The first ${shown}:` : shown === 1 ? 'It is:' : `They are:`);
    for (const row of r.rows.slice(0, shown)) {
      lines.push(`- #${row.id} ${md(row.title)} (${row.severity}${row.reportFilename ? `, ${md(row.reportFilename)}` : ''})`);
    }
  }
  return lines.join('\n');
}

/** Answer to "which report has the most …" / "top N reports or CWEs by …", ties at the boundary included. */
export function topAnswer(r: CountFindingsByResult, n: number): string {
  const what = r.groupBy === 'report' ? 'report' : 'CWE';
  const scope = filterPhrase(r.filter);
  const groups = r.groups.filter((g) => g.count > 0 && !(r.groupBy === 'cwe' && g.key === 'none'));
  if (!groups.length) return `No findings match ${scope === 'no filter' ? 'the corpus' : `the filter ${scope}`} (total ${r.total}), so no ${what} has any.`;
  const cut = groups[Math.min(n, groups.length) - 1].count;
  const top = groups.filter((g, i) => i < n || g.count === cut);
  const label = (g: { key: string; label: string }) => (r.groupBy === 'cwe' ? `CWE-${md(g.key)}${g.label && g.label !== g.key ? ` ${md(g.label)}` : ''}` : md(g.label));
  const filterText = scope === 'no filter' ? 'all findings' : `findings with ${scope}`;
  const lines: string[] = [];
  if (n === 1 && top.length === 1) {
    const next = groups[1];
    lines.push(
      `The ${what} with the most ${filterText} is **${label(top[0])}** with **${top[0].count}**` +
        (next ? ` (next: ${label(next)} with ${next.count}).` : '.'),
    );
  } else {
    lines.push(n === 1 ? `These ${what}s tie for the most ${filterText}:` : `Top ${n} ${what}s by ${filterText}${top.length > n ? ' (ties included)' : ''}:`);
    top.forEach((g, i) => lines.push(`${i + 1}. **${label(g)}**: ${g.count}`));
  }
  lines.push('');
  lines.push(`Counted by count_findings_by (group by ${r.groupBy}, ${scope}) over ${plural(r.total, 'finding')} in ${plural(groups.length, what)}.`);
  return lines.join('\n');
}

const VERDICT_LABEL: Record<string, string> = { still_open: 'still open', fixed: 'fixed', inconclusive: 'inconclusive', none: 'no verdict' };

/** Answer to "breakdown by severity / CWE / verdict / report": every severity and verdict listed, zeros included. */
export function breakdownAnswer(r: CountFindingsByResult): string {
  const scope = filterPhrase(r.filter);
  const lines = [`Findings by ${r.groupBy} (${scope}; ${r.total} findings in total, from count_findings_by):`];
  const byKey = new Map(r.groups.map((g) => [g.key, g]));
  if (r.groupBy === 'severity') {
    for (const s of SEVERITIES) lines.push(`- ${s}: ${byKey.get(s)?.count ?? 0}`);
  } else if (r.groupBy === 'verdict') {
    for (const v of [...VERDICT_STATUSES, 'none']) lines.push(`- ${VERDICT_LABEL[v]}: ${byKey.get(v)?.count ?? 0}`);
  } else {
    const cap = 50;
    for (const g of r.groups.slice(0, cap)) {
      const label = r.groupBy === 'cwe' ? (g.key === 'none' ? 'no CWE' : `CWE-${md(g.key)}${g.label && g.label !== g.key ? ` ${md(g.label)}` : ''}`) : md(g.label);
      lines.push(`- ${label}: ${g.count}`);
    }
    if (r.groups.length > cap) lines.push(`- … and ${r.groups.length - cap} more ${r.groupBy === 'cwe' ? 'CWE ids' : 'reports'}`);
    if (r.groupBy === 'cwe') lines.push('', 'A finding with several CWE ids counts once under each.');
  }
  return lines.join('\n');
}

/** Answer to "how many reports (are there)". */
export function reportCountAnswer(reports: ReportSummary[]): string {
  const byStatus = new Map<string, number>();
  for (const r of reports) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
  const findings = reports.reduce((n, r) => n + r.findingCount, 0);
  const statuses = [...byStatus].map(([s, n]) => `${n} ${s}`).join(', ');
  return `There are **${reports.length}** reports${statuses ? ` (${statuses})` : ''}, holding ${findings} findings, according to list_all_reports (archived reports excluded).`;
}

/** Answer to "list the reports". */
export function reportListAnswer(reports: ReportSummary[]): string {
  if (!reports.length) return 'There are no reports yet (list_all_reports returned none). Import a scanner file on the Reports page.';
  const lines = [`There are **${reports.length}** reports (from list_all_reports, archived excluded):`];
  for (const r of reports.slice(0, 100)) {
    const sev = SEVERITIES.filter((s) => r.bySeverity[s]).map((s) => `${s} ${r.bySeverity[s]}`).join(', ');
    lines.push(`- #${r.id} **${md(r.filename)}** (${r.format}, ${r.status}): ${plural(r.findingCount, 'finding')}${sev ? ` — ${sev}` : ''}`);
  }
  if (reports.length > 100) lines.push(`- … and ${reports.length - 100} more`);
  return lines.join('\n');
}

/** Answer to "how many reports have critical findings". */
export function reportsWithAnswer(r: CountFindingsByResult): string {
  const groups = r.groups.filter((g) => g.count > 0);
  const scope = filterPhrase(r.filter);
  const lines = [`**${groups.length}** ${groups.length === 1 ? 'report has' : 'reports have'} findings with ${scope} (${r.total} such findings in total, from count_findings_by report).`];
  for (const g of groups.slice(0, 20)) lines.push(`- ${md(g.label)}: ${g.count}`);
  if (groups.length > 20) lines.push(`- … and ${groups.length - 20} more`);
  return lines.join('\n');
}

/** Answer to "give me an overview". */
export function overviewAnswer(o: CorpusOverview): string {
  const lines = [
    `The corpus holds **${o.reports.total}** reports and **${o.findings.total}** findings (get_corpus_overview).`,
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
  if (c.affectedEndpoints.length) lines.push(`- Affected: ${c.affectedEndpoints.slice(0, 5).map(md).join(', ')}${c.affectedEndpoints.length > 5 ? ', …' : ''}`);
  const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
  if (c.description) lines.push('', clip(md(c.description), 800));
  if (c.impact) lines.push('', `Impact: ${clip(md(c.impact), 400)}`);
  return lines.join('\n');
}

/** What the planner can answer (no numbers at all, so nothing can be mistaken for a count). */
export const CAPABILITIES =
  'I answer questions about the imported reports and their findings with exact counts from read-only queries, for example:\n' +
  '- how many reports or findings there are, optionally of a severity, in a report, with a verdict or a CWE id;\n' +
  '- how many findings relate to a topic such as SQL injection, XSS or jQuery;\n' +
  '- which report has the most findings or criticals, or the top reports by a severity;\n' +
  '- a breakdown of findings by severity, CWE or verdict;\n' +
  '- the list of reports, and the details of a finding by its id;\n' +
  '- follow-ups such as "and how many of those are high?" or "show the first one".\n\n' +
  'This is the built-in planner. For other questions, an administrator can configure a model server in Settings.';

export function outOfScopeAnswer(reason: 'write' | 'unknown'): string {
  if (reason === 'write') {
    return `I can't do that: I only read the corpus, and none of my tools can delete, change or import anything. Reports are managed on the Reports page.\n\n${CAPABILITIES}`;
  }
  return `I can't answer that from the corpus.\n\n${CAPABILITIES}`;
}

export const NO_PREVIOUS_ANSWER =
  'I have no earlier result in this thread to refer to. Ask the whole question, for example "how many findings relate to SQL injection?" or "list the reports".';
