/** The planner's answers in English: the words `answer-writer.ts` fills in. */
import { SEVERITIES, type FindingFilter, type Severity } from '@corpus-chat/contracts';
import { reportTally } from './answer-rows';
import { md, quote, words } from './answer-text';
import { classNote, scopePhrase, type AnswerLanguage, type ScopedCount } from './answer-writer';
import type { PlannedQuestion, Unapplied } from './question-plan';
import { comparisonAnswer } from './scan-comparison';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const statusLabel = (s: string) => s.replace('_', ' ');
const VERDICT_LABEL: Record<string, string> = {
  still_open: 'still open',
  fixed: 'fixed',
  inconclusive: 'inconclusive',
  none: 'no verdict',
};
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

/** "critical or high", "critical, high or medium" (most severe first). */
function severityList(set: readonly Severity[]): string {
  const ordered = SEVERITIES.filter((s) => set.includes(s));
  if (ordered.length <= 1) return ordered.join('');
  return `${ordered.slice(0, -1).join(', ')} or ${ordered.at(-1)}`;
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
function scopedCountAnswer(c: ScopedCount, note?: string): string {
  const base = scopePhrase(ENGLISH, c.filter);
  const subject = `**${c.total}** ${c.total === 1 ? 'finding' : 'findings'}${base ? ` with ${base}${classNote(ENGLISH, c.filter)}` : ''}`;
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

/** What the planner can answer (no numbers at all, so nothing can be mistaken for a count). */
const CAPABILITIES =
  'I answer questions about the imported reports and their findings with exact counts from read-only queries, for example:\n' +
  '- how many reports or findings there are, optionally of a severity (or several, like "high or critical", "not info"), in a report, with a verdict, a triage status or a CWE id;\n' +
  '- how many findings relate to a topic such as SQL injection, XSS or jQuery (or do not);\n' +
  '- which report has the most findings or criticals, or the top reports by a severity;\n' +
  '- a breakdown of findings by severity, CWE, verdict or triage status;\n' +
  '- the list of reports, and the details of a finding by its id;\n' +
  '- follow-ups such as "and how many of those are high?" or "show the first one".\n\n' +
  'This is the built-in planner. For other questions, an administrator can configure a model server in Settings.';

/** What a plan would have answered, in words, for a refusal ("the number of findings with severity critical"). */
function understoodPhrase(plan: PlannedQuestion): string {
  const scoped = 'filter' in plan ? scopePhrase(ENGLISH, plan.filter, plan.scope) : '';
  const withScope = scoped ? ` with ${scoped}` : '';
  switch (plan.kind) {
    case 'count_findings':
      return `the number of findings${withScope}`;
    case 'top':
      return `which ${plan.groupBy === 'report' ? 'reports' : 'CWE ids'} have the most findings${withScope}`;
    case 'breakdown':
      return `findings${withScope} by ${plan.groupBy === 'cwe' ? 'CWE' : plan.groupBy}`;
    case 'reports_with':
      return `how many reports have findings${withScope}`;
    case 'count_reports':
      return 'the number of reports';
    case 'list_reports':
      return 'the list of reports';
    case 'overview':
      return 'an overview of the corpus';
    default:
      return 'questions about the corpus';
  }
}

const REASON_TEXT: Record<Unapplied['reason'], (p: Unapplied) => string> = {
  time: () =>
    "No tool filters by date: they know a finding's severity, text, report, CWE ids and verdict, but not when it was imported or found.",
  negation: (p) => `I didn't understand what ${quote(p.text)} leaves out.`,
  combination: (p) =>
    `I can't turn ${quote(p.text)} into one exact count together with the rest of the question (the text search cannot compare numbers or combine topics, and I combine only one exclusion at a time).`,
  order: (p) =>
    `I rank only from the most: ${quote(p.text)} would need every report or CWE id with no matching finding, which a grouped count leaves out.`,
  unknown: (p) => `I don't know ${quote(p.text)} as a severity, report, CWE id, verdict or topic.`,
};

export const ENGLISH: AnswerLanguage = {
  num: String,
  findings: (n) => plural(n, 'finding'),
  quote,
  severity: (s) => s,
  severityList,
  verdict: (v) => VERDICT_LABEL[v],
  reportStatus: (s) => s,
  scope: {
    severity: (label) => `severity ${label}`,
    text: (quoted) => `text ${quoted}`,
    report: (name) => `report ${name}`,
    format: (format) => `format ${format}`,
    scanner: (quoted) => `scanner ${quoted}`,
    archived: 'archived reports included',
    verdict: (v) => `verdict ${VERDICT_LABEL[v]}`,
    status: (s) => `triage status ${statusLabel(s)}`,
    edited: {
      any: 'edited by operators',
      severity: 're-rated by operators (severity changed since import)',
    },
    exclude: (parts) => `excluding ${parts.join(' and ')}`,
    has: (key, present) => `${present ? 'with' : 'without'} ${key === 'cwe' ? 'a CWE id' : 'a verdict'}`,
  },
  classNote: (classes) =>
    ` (the text also matches ${classes.map(([name, ids]) => `the ${name} class: ${ids}`).join('; ')})`,
  followUp: {
    instead: (phrase, before) => `${phrase} instead of ${before}`,
    dropped: (phrase) => `dropped ${phrase}`,
    added: (phrases) => `narrowed to ${phrases}`,
    kept: (phrases) => `kept ${phrases}`,
    note: (segments) =>
      segments.length
        ? `Follow-up on the previous question: ${segments.join('; ')}.`
        : 'Follow-up on the previous question, with the same filter.',
  },
  countHead: (total, scope) =>
    !scope
      ? `There are **${total}** findings in total. Exact total from search_findings, no filter.`
      : `**${total}** ${total === 1 ? 'finding matches' : 'findings match'} ${scope}. Exact total from search_findings.`,
  countShown: (total, shown) =>
    total > shown ? `The first ${shown}:` : shown === 1 ? 'It is:' : 'They are:',
  scopedCount: scopedCountAnswer,
  /** `CWE-79` (or `CWE-79 Cross-site Scripting` when the query layer gave a name), `no CWE`. */
  cweLabel(g) {
    if (g.key === 'none') return 'no CWE';
    const id = `CWE-${md(g.key)}`;
    const label = (g.label ?? '').trim();
    if (!label || label === g.key || label.toUpperCase() === `CWE-${g.key}`) return id;
    if (label.toUpperCase().startsWith(`CWE-${g.key}`)) return md(label);
    return `${id} ${md(label)}`;
  },
  grouped: (groupBy, how) =>
    `Exact counts from count_findings_by, grouped by ${GROUP_NOUN[groupBy]}${how ? ` (${how})` : ''}.`,
  howSeverities: 'one call per severity, added up',
  howExclude: 'minus the same counts for the excluded findings',
  topEmpty: (groupBy, scope, total) =>
    `No findings match ${scope ? scope : 'anything in the corpus'} (${total} in total), so no ${GROUP_NOUN[groupBy]} has any.`,
  topOne: (groupBy, scope, first, count, next) =>
    `The ${GROUP_NOUN[groupBy]} with the most ${scope ? `findings with ${scope}` : 'findings'} is **${first}** with **${count}**` +
    (next ? ` (next: ${next[0]} with ${next[1]}).` : '.'),
  topMany: (groupBy, scope, n, ties) => {
    const what = GROUP_NOUN[groupBy];
    const filterText = scope ? `findings with ${scope}` : 'findings';
    return n === 1
      ? `These ${what}s tie for the most ${filterText}:`
      : `Top ${n} ${what}s by number of ${filterText}${ties ? ' (ties included)' : ''}:`;
  },
  topFooter: (groupBy, total, groups) =>
    `${plural(total, 'finding')}${groupBy === 'title' ? `; the ${plural(groups, 'commonest title')} were compared` : ` in ${plural(groups, GROUP_NOUN[groupBy])}`}.`,
  breakdownHead: (groupBy, scope, total) =>
    `Findings by ${groupBy === 'cwe' ? 'CWE' : groupBy === 'status' ? 'triage status' : groupBy}${scope ? ` (${scope})` : ''}, ${plural(total, 'finding')} in total:`,
  breakdownMore: (groupBy, hidden) => `and ${hidden} more ${groupBy === 'cwe' ? 'CWE ids' : 'reports'}`,
  cweNote: 'A finding with several CWE ids counts once under each.',
  reportCount(reports) {
    const { byStatus, findings } = reportTally(reports);
    const statuses = byStatus.map(([s, n]) => `${n} ${s}`).join(', ');
    return `There are **${reports.length}** reports${statuses ? ` (${statuses})` : ''}, holding ${findings} findings. From list_all_reports; archived reports are not counted.`;
  },
  noReports:
    'There are no reports yet (list_all_reports returned none). Import a scanner file on the Reports page.',
  reportListHead: (n) => `There are **${n}** reports (from list_all_reports; archived reports not shown):`,
  moreReports: (n) => `- … and ${n} more`,
  noFilter: 'no filter',
  reportsWithHead: (reports, scope, total) =>
    `**${reports}** ${reports === 1 ? 'report has' : 'reports have'} findings with ${scope}, ${plural(total, 'such finding')} in all.`,
  overview: {
    head: (reports, findings) =>
      `The corpus holds **${reports}** reports and **${findings}** findings (from get_corpus_overview).`,
    bySeverity: 'Findings by severity: ',
    verdicts: 'Verdicts: ',
    largest: 'Largest reports:',
  },
  detail: {
    finding: 'Finding',
    severity: 'Severity',
    report: 'Report',
    byHand: 'none (entered by hand)',
    none: 'none',
    verdict: 'Latest verdict',
    versions: 'Versions',
    affected: 'Affected',
    impact: 'Impact',
  },
  /**
   * Answer to "what percentage of … are …": the part's count and the whole's, both exact totals
   * from search_findings, and the percentage they give (one decimal), with both filters in words.
   */
  share(part, whole) {
    const wholeScope = scopePhrase(ENGLISH, whole.filter);
    const pct = whole.total
      ? `${((100 * part.total) / whole.total).toFixed(1)}%`
      : 'no share: the whole is empty';
    const of = wholeScope
      ? `the **${whole.total}** findings matching ${wholeScope}`
      : `all **${whole.total}** findings`;
    return `**${part.total}** of ${of} match ${scopePhrase(ENGLISH, part.filter)} (${pct}). Exact totals from search_findings, one call each.`;
  },
  comparison: (plan, c) => comparisonAnswer(plan, c, md),
  outOfScope: (reason) =>
    reason === 'write'
      ? `I can't do that: I only read the corpus, and none of my tools can delete, change or import anything. Reports are managed on the Reports page.\n\n${CAPABILITIES}`
      : `I can't answer that from the corpus.\n\n${CAPABILITIES}`,
  tooLong: (length, max) =>
    `That message is ${length.toLocaleString('en')} characters long; I read questions of up to ${max.toLocaleString('en')} characters, so I did not read it. ` +
    'Ask one question at a time, for example "how many findings relate to SQL injection?".\n\n' +
    CAPABILITIES,
  noPrevious:
    'I have nothing earlier in this thread that this could refer to (no previous count, or no finding listed). Ask the whole question, for example "how many findings relate to SQL injection?" or "list the reports".',
  /**
   * A question with parts the planner cannot apply: names each part and why, gives no number (a
   * count without that part would answer a different question), and says what it can answer instead.
   */
  unsupported(parts, understood) {
    const lines = [
      `I can't give an exact number for that: I couldn't apply ${parts.map((p) => quote(p.text)).join(', ')}.`,
    ];
    for (const p of parts) lines.push(REASON_TEXT[p.reason](p));
    lines.push('A count without it would answer a different question, so I am not giving one.');
    lines.push(
      '',
      `What I can answer is ${understoodPhrase(understood)}: ask again without ${parts.length === 1 ? 'that part' : 'those parts'}.`,
    );
    const topicLike = parts.find((p) => p.topicLike);
    if (topicLike)
      lines.push(
        `If ${quote(topicLike.text)} is a topic, ask "how many findings mention ${words(topicLike.text)}?".`,
      );
    return lines.join('\n');
  },
  /** A report named by part of its file name matches no report, or several. */
  reportHint(hint, matches) {
    if (!matches.length) {
      const lead = hint.loose
        ? `I can't give an exact number for that: I couldn't apply ${quote(hint.text)}.`
        : `I can't give a number for that report:`;
      return (
        `${lead} No report's file name matches ${quote(hint.text)}, and I don't know it as a severity, CWE id, verdict or topic either.\n\n` +
        'Ask "list the reports" to see every file name, then ask again with one of them (a part of the name is enough when it is unique).' +
        (hint.loose
          ? ` If ${quote(hint.text)} is a topic, ask "how many findings mention ${words(hint.text)}?".`
          : '')
      );
    }
    const lines = [
      `I can't give a number yet: ${quote(hint.text)} matches more than one report, and counting them all would not answer for the one you mean:`,
    ];
    for (const m of matches.slice(0, 20)) lines.push(`- ${md(m)}`);
    if (matches.length > 20) lines.push('- …');
    lines.push('', 'Ask again with the file name (or a part of it that only one report has).');
    return lines.join('\n');
  },
  failed: (error) => `I could not get that number: ${md(error)}`,
  comparisonFailed: (error) => `I did not compare them: ${md(error)}`,
  noSuchFinding: (id) => `There is no finding with id ${id} (finding_detail found none).`,
  fewerFindings: (shown) =>
    `The previous answer showed ${shown === 1 ? 'one finding' : 'fewer findings than that'}; ask for a finding by its id, for example "show finding" followed by the id.`,
  fewerGroups: (listed) =>
    `The previous answer listed ${listed.groups.length === 1 ? 'one' : 'fewer'} ${listed.groupBy === 'cwe' ? 'CWE ids' : `${listed.groupBy}s`} than that; ask about one by name.`,
  titleNotFilter: (label) =>
    `I can't count the findings of ${md(label)} exactly: a finding title is not a filter the tools take. Ask "how many findings mention …" with its words instead.`,
  fromRanking: (label) => `From the previous ranking, ${md(label)}:`,
  unknownReport: (name) => `Note: no report named ${md(name)} was found, so nothing matches it.`,
  listOneSeverity:
    'To list the findings themselves, ask for one severity at a time (the search tool takes one severity).',
  searchedText: (term) =>
    `"${md(term)}" is not a severity, format, status or report I know, so I searched the findings' text for '${md(term)}'.`,
};
