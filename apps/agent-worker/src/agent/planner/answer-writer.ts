/**
 * One writer for the planner's answers in every language, with a count or without (refusals): the
 * facts, their order and the tool names are decided here once; the words are ICU-style messages
 * (`answer-messages.json`) of a language (`answer-languages.ts`). Report file names, CWE ids and
 * tool names stay as the tools return them.
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
  type OperatorLanguage,
  type FindingFilter,
  type ReportStatus,
  type ReportSummary,
  type ScanComparison,
  type SearchFindingsResult,
} from '@corpus-chat/contracts';
import { answerLanguage, cut, md, words, type AnswerLanguage, type MessageParams } from './answer-languages';
import type MESSAGES from './answer-messages.json';
import type { ScopedCount } from './computed-counts';
import type { Counting, PlannedQuestion, Unapplied } from './question-plan';
import type { ComparisonPlan } from './scan-comparison';

/** Groups a breakdown lists one by one before it says how many more there are. */
const BREAKDOWN_CAP = 50;

/** The groups a ranking compares: those with a finding, without "no CWE". */
function rankableGroups(r: CountFindingsByResult): CountGroup[] {
  return r.groups.filter((g) => g.count > 0 && !(r.groupBy === 'cwe' && g.key === 'none'));
}

/** The groups a top-`n` answer lists: the first `n` with a finding, and every group tied with the n-th. */
export function rankedGroups(r: CountFindingsByResult, n: number): CountGroup[] {
  const groups = rankableGroups(r);
  if (!groups.length) return [];
  const cut = groups[Math.min(n, groups.length) - 1].count;
  return groups.filter((g, i) => i < n || g.count === cut);
}

/** Every text the planner answers with, in one language: the same facts, worded for the operator. */
export function writerFor(L: AnswerLanguage) {
  const m = L.messages.format;
  const capabilities = m('capabilities');
  /** Each part of a scope in words, keyed by the kind of part (so follow-ups can tell replaced from kept). */
  function scopeParts(f: FindingFilter | AppliedFilter, scope?: ComputedScope): Map<string, string> {
    const parts = new Map<string, string>();
    const severities = f.severity ? [f.severity] : scope?.severities;
    if (severities) parts.set('severity', m('scope.severity', { label: L.severityList(severities) }));
    if (f.text) parts.set('text', m('scope.text', { q: L.quote(f.text) }));
    const reportFilename = (f as AppliedFilter).reportFilename ?? f.reportName;
    if (reportFilename) parts.set('report', m('scope.report', { name: md(reportFilename) }));
    else if (f.reportId != null) parts.set('report', m('scope.report', { name: `#${f.reportId}` }));
    if (f.format) parts.set('format', m('scope.format', { format: f.format }));
    if (f.scanner) parts.set('scanner', m('scope.scanner', { q: L.quote(f.scanner) }));
    if (f.includeArchived) parts.set('archived', m('scope.archived'));
    if (f.cwe != null) parts.set('cwe', `CWE-${f.cwe}`);
    if (f.verdict) parts.set('verdict', m('scope.verdict', { v: L.verdict(f.verdict) }));
    if (f.status) parts.set('status', m('scope.status', { s: L.status(f.status) }));
    if (f.edited && L.messages.has(`scope.edited.${f.edited}`))
      parts.set('edited', m(`scope.edited.${f.edited}`));
    if (scope?.exclude) {
      const excluded = [...scopeParts(scope.exclude).values()].join(m('scope.and'));
      parts.set('exclude', m('scope.exclude', { parts: excluded }));
    }
    if (scope?.has) parts.set('has', m('scope.has', { key: scope.has.key, present: scope.has.present }));
    return parts;
  }
  /** The filter and scope in words ("severity critical, text 'XSS', report x.sarif"), or '' for none. */
  const scopePhrase = (f: FindingFilter | AppliedFilter, scope?: ComputedScope) =>
    [...scopeParts(f, scope).values()].join(', ');
  /** " (the text also matches the SQL injection class: CWE-89)" when the text search was widened. */
  function classNote(f: AppliedFilter): string {
    if (!f.weaknessClasses?.length) return '';
    const classes = f.weaknessClasses.map((c) =>
      m('classNote.item', { name: md(c.name), ids: c.cwe.map((id) => `CWE-${id}`).join(', ') }),
    );
    return m('classNote', { classes: classes.join('; ') });
  }
  /** What an exclusion removes, as its message's words ("do not match text 'X'", "are not in report R"). */
  function exclusion(e: FindingFilter): [string, Record<string, string>] {
    if (e.text) return ['text', { q: L.quote(e.text) }];
    if (e.verdict) return e.verdict === 'fixed' ? ['fixed', {}] : ['verdict', { v: L.verdict(e.verdict) }];
    if (e.status) return ['status', { s: L.status(e.status) }];
    if (e.reportName || e.reportId != null)
      return ['report', { name: e.reportName ? md(e.reportName) : `#${e.reportId}` }];
    if (e.cwe != null) return ['cwe', { cwe: `${e.cwe}` }];
    return ['other', {}];
  }
  /** A grouped answer: the lines, then how the counts were obtained. */
  function groupedAnswer(r: CountFindingsByResult, lines: string[], scope?: ComputedScope, end = '') {
    const how = [
      scope?.severities && r.groupBy !== 'severity' && m('grouped.severities'),
      scope?.exclude && m('grouped.exclude'),
    ].filter(Boolean);
    const what = m('group.noun', { groupBy: r.groupBy });
    const source = m('grouped', { groupBy: r.groupBy, what, how: how.length ? ` (${how.join(', ')})` : '' });
    return [...lines, '', source + end].join('\n');
  }
  return {
    /**
     * Answer to "how many / list findings …": the exact total, then every row of the call (its `limit`
     * decides, so the list, the tool card's "N of TOTAL" and the follow-up ids agree).
     */
    count(r: SearchFindingsResult): string {
      const scope = scopePhrase(r.filter);
      const head = scope
        ? m('count.scoped', { total: r.total, scope: `${scope}${classNote(r.filter)}` })
        : m('count.all', { total: r.total });
      if (!r.rows.length) return head;
      const shown = r.rows.length;
      const intro = r.total > shown ? 'count.first' : shown === 1 ? 'count.one' : 'count.many';
      const where = (file: string | null) => (file ? `, ${md(file)}` : '');
      const rows = r.rows.map(
        (f) => `- #${f.id} ${md(f.title)} (${L.severity(f.severity)}${where(f.reportFilename)})`,
      );
      return [head, '', m(intro, { shown: `${shown}` }), ...rows].join('\n');
    },
    /** Answer to "which report has the most …" / "top N reports or CWEs by …", boundary ties included. */
    top(r: CountFindingsByResult, n: number, scope?: ComputedScope): string {
      const groupBy = r.groupBy;
      const words = { groupBy, what: m('group.noun', { groupBy }), scope: scopePhrase(r.filter, scope) };
      const groups = rankableGroups(r);
      if (!groups.length) return m('top.empty', { ...words, total: r.total });
      const top = rankedGroups(r, n);
      const label = (g: CountGroup) => L.groupLabel(groupBy, g);
      const [first, next] = groups;
      const lines =
        n === 1 && top.length === 1
          ? [
              m('top.one', {
                ...words,
                first: label(first),
                count: first.count,
                next: next && label(next),
                nextCount: next?.count,
              }),
            ]
          : [
              m(n === 1 ? 'top.tie' : 'top.many', { ...words, n: `${n}`, ties: top.length > n }),
              ...top.map((g, i) => `${i + 1}. **${label(g)}**: ${L.num(g.count)}`),
            ];
      const groupCount = m('group.count', { ...words, n: groups.length });
      const footer = m('top.footer', { ...words, total: r.total, groups: groups.length, groupCount });
      return groupedAnswer(r, lines, scope, ` ${footer}`);
    },
    /**
     * Answer to "breakdown by severity / CWE / verdict / report": every severity the scope shows and
     * every verdict, zeros included (a zero is an answer too); other groupings as the query layer
     * ordered them, the first 50.
     */
    breakdown(r: CountFindingsByResult, scope?: ComputedScope): string {
      const groupBy = r.groupBy;
      const shown = scope?.severities ?? SEVERITIES;
      const keys =
        groupBy === 'severity' ? SEVERITIES.filter((s) => shown.includes(s)) : [...VERDICT_STATUSES, 'none'];
      const byKey = new Map(r.groups.map((g) => [g.key, g.count]));
      const groups =
        groupBy === 'severity' || groupBy === 'verdict'
          ? keys.map((key) => ({ key, label: key, count: byKey.get(key) ?? 0 }))
          : r.groups.slice(0, BREAKDOWN_CAP);
      const head = m('breakdown.head', { groupBy, scope: scopePhrase(r.filter, scope), total: r.total });
      const rows = groups.map((g) => `- ${L.groupLabel(groupBy, g)}: ${L.num(g.count)}`);
      const hidden = r.groups.length - BREAKDOWN_CAP;
      if (hidden > 0) {
        const groupCount = m('group.count', { groupBy, n: hidden, what: '' });
        rows.push(`- … ${m('breakdown.more', { groupBy, hidden, groupCount })}`);
      }
      if (groupBy === 'cwe') rows.push('', m('breakdown.cweNote'));
      return groupedAnswer(r, [head, ...rows], scope);
    },
    /** Answer to "how many reports (are there)". */
    reportCount(reports: ReportSummary[]): string {
      // Statuses in the order first met.
      const byStatus = new Map<ReportStatus, number>();
      for (const r of reports) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
      const statuses = [...byStatus]
        .map(([s, n]) => m('reports.status', { n, status: L.reportStatus(s) }))
        .join(', ');
      const findings = reports.reduce((n, r) => n + r.findingCount, 0);
      return m('reports.count', { n: reports.length, statuses, findings });
    },
    /** Answer to "list the reports". */
    reportList(reports: ReportSummary[]): string {
      if (!reports.length) return m('reports.none');
      const lines = [m('reports.head', { n: reports.length })];
      for (const r of reports.slice(0, 100)) {
        const sev = SEVERITIES.filter((s) => r.bySeverity[s])
          .map((s) => `${L.severity(s)} ${L.num(r.bySeverity[s])}`)
          .join(', ');
        const count = m('findings', { n: r.findingCount }) + (sev ? ` — ${sev}` : '');
        lines.push(`- #${r.id} **${md(r.filename)}** (${r.format}, ${L.reportStatus(r.status)}): ${count}`);
      }
      if (reports.length > 100) lines.push(m('reports.more', { n: reports.length - 100 }));
      return lines.join('\n');
    },
    /** Answer to "how many reports have critical findings". */
    reportsWith(r: CountFindingsByResult, scope?: ComputedScope): string {
      const groups = r.groups.filter((g) => g.count > 0);
      const words = scopePhrase(r.filter, scope) || m('reportsWith.noFilter');
      const lines = [m('reportsWith.head', { reports: groups.length, scope: words, total: r.total })];
      for (const g of groups.slice(0, 20)) lines.push(`- ${md(g.label)}: ${L.num(g.count)}`);
      if (groups.length > 20) lines.push(m('reports.more', { n: groups.length - 20 }));
      return groupedAnswer(r, lines, scope);
    },
    /** Answer to "give me an overview". */
    overview(o: CorpusOverview): string {
      const largest = [...o.perReport].sort((a, b) => b.total - a.total).slice(0, 5);
      return m('overview', {
        reports: o.reports.total,
        findings: o.findings.total,
        bySeverity: L.tally(SEVERITIES.map((s) => [L.severity(s), o.findings.bySeverity[s]])),
        verdicts: L.tally(VERDICT_STATUSES.map((v) => [L.verdict(v), o.verdicts[v] ?? 0])),
        largest: largest.map((r) => `- ${md(r.filename)}: ${L.num(r.total)}`).join('\n'),
      });
    },
    /** Answer to "show finding N". */
    detail(f: FindingDetail): string {
      const d = (key: string) => m(`detail.${key}`);
      const c = f.current;
      const lines = [`**${d('finding')} #${f.id}: ${md(c.title)}**`, ''];
      const cvss = c.cvss?.base_score != null ? ` (CVSS ${c.cvss.base_score})` : '';
      lines.push(`- ${d('severity')}: ${L.severity(c.severity)}${cvss}`);
      lines.push(`- ${d('report')}: ${f.reportFilename ? md(f.reportFilename) : d('byHand')}`);
      lines.push(`- CWE: ${c.cwe.length ? c.cwe.map((id) => `CWE-${id}`).join(', ') : d('none')}`);
      lines.push(`- ${d('verdict')}: ${f.latestVerdict ? L.verdict(f.latestVerdict.status) : d('none')}`);
      lines.push(`- ${d('versions')}: ${f.versionCount}`);
      const endpoints = c.affectedEndpoints.slice(0, 5).map(md);
      if (c.affectedEndpoints.length > 5) endpoints.push('…');
      if (endpoints.length) lines.push(`- ${d('affected')}: ${endpoints.join(', ')}`);
      // The scanner's own text stays as it was written.
      if (c.description) lines.push('', md(cut(c.description, 800)));
      if (c.impact) lines.push('', `${d('impact')}: ${md(cut(c.impact, 400))}`);
      return lines.join('\n');
    },
    /**
     * A comparison from `compare_reports` only: the asked count and its findings' titles, then the
     * other counts and both reports with their recorded scan dates.
     */
    comparison(plan: ComparisonPlan, c: ScanComparison): string {
      const names = { report: `**${md(c.report.filename)}**`, baseline: `**${md(c.baseline.filename)}**` };
      const list = (rows: ScanComparison['newFindings']) =>
        rows.map((f) =>
          m('compare.row', { title: md(f.title), severity: L.severity(f.severity), id: `${f.id}` }),
        );
      const lines: string[] = [];
      for (const k of ['new', 'fixed'] as const)
        if (plan.asked === k || plan.asked === 'all') {
          lines.push(m(`compare.${k}`, { ...names, n: c[k] }));
          if (c[k]) lines.push(list(c[`${k}Findings`]).join('\n'));
        }
      if (plan.asked === 'unchanged') lines.push(m('compare.unchanged', { ...names, n: c.unchanged }));
      const day = (iso: string | null) => (iso ? iso.slice(0, 10) : m('compare.noTime'));
      lines.push(
        '',
        m('compare.total', {
          ...names,
          new: c.new,
          fixed: c.fixed,
          unchanged: c.unchanged,
          baselineDay: day(c.baseline.scannedAt),
          baselineFindings: m('findings', { n: c.baseline.findingCount }),
          reportDay: day(c.report.scannedAt),
          reportFindings: m('findings', { n: c.report.findingCount }),
          target: md(c.target.join(', ')),
          byTime: c.baselineBy === 'scan_time',
        }),
      );
      return lines.join('\n');
    },
    /**
     * Answer to a count of a set of severities, an exclusion ("not about X") or findings with(out) any CWE id
     * or verdict.
     */
    scopedCount(c: ScopedCount): string {
      const note = classNote(c.filter);
      const subject = m('scoped.subject', { total: c.total, scope: scopePhrase(c.filter), note });
      const has = c.scope.has;
      if (has && c.presence) return m('scoped.has', { subject, total: c.total, ...has, ...c.presence });
      const rows = c.bySeverity ?? [];
      const counted = rows.map((r) => r.severity);
      const all = counted.length === SEVERITIES.length || !!c.filter.severity;
      const missing = SEVERITIES.filter((s) => !counted.includes(s));
      const list = L.severityList(counted);
      const sevWords = all
        ? ''
        : missing.length === 1 && counted.length > 2
          ? m('scoped.notSeverity', { missing: L.severity(missing[0]), list })
          : m('scoped.severities', { list });
      const e = c.scope.exclude;
      const [kind, words] = e ? exclusion(e) : ['other', {}];
      const excl = e && m('scoped.exclusion', { excl: m(`excl.${kind}`, words) });
      const predicate = [sevWords, excl].filter(Boolean).join(m('scoped.and'));
      // Without an exclusion nothing is excluded: each term is the severity's count.
      const terms = L.tally(
        rows.map((r) => [L.severity(r.severity), r.count - r.excluded]),
        ' + ',
      );
      if (!e) return m('scoped.sum', { subject, predicate, terms });
      const sum = (k: 'count' | 'excluded') => rows.reduce((n, r) => n + r[k], 0);
      return m('scoped.minus', {
        subject,
        predicate,
        terms: all ? '' : ` (${terms})`,
        count: sum('count'),
        excluded: sum('excluded'),
        excludedWhat: m(`excluded.${kind}`, words),
      });
    },
    /**
     * `answer` with a note at the end of its first line of how a follow-up used the previous answer,
     * truthfully, part by part (keyed like `scopeParts`): which parts the new question replaced or
     * dropped, which it added and which it kept from before.
     */
    withFollowUpNote(plan: Counting, answer: string): string {
      if (!plan.followUp || !plan.previous || !plan.asked) return answer;
      const [before, now, own] = [plan.previous, plan, plan.asked].map((p) => scopeParts(p.filter, p.scope));
      const replaced: string[] = [];
      const added: string[] = [];
      const kept: string[] = [];
      for (const [key, phrase] of now) {
        const was = before.get(key);
        if (own.has(key) && was !== undefined && was !== phrase)
          replaced.push(m('followUp.instead', { phrase, before: was }));
        else if (own.has(key) && was === undefined) added.push(phrase);
        else kept.push(phrase);
      }
      for (const [key, phrase] of before) if (!now.has(key)) replaced.push(m('followUp.dropped', { phrase }));
      const segments: string[] = [];
      if (replaced.length) segments.push(replaced.join(', '));
      if (added.length) segments.push(m('followUp.added', { phrases: added.join(', ') }));
      if (kept.length) segments.push(m('followUp.kept', { phrases: kept.join(', ') }));
      const note = segments.length
        ? m('followUp.note', { segments: segments.join('; ') })
        : m('followUp.same');
      return answer.replace(/^[^\n]*/, (first) => `${first} ${note}`);
    },
    /**
     * A question with parts the planner cannot apply: names each part and why, gives no number (a
     * count without that part would answer a different question), and says what it can answer instead.
     */
    unsupported(parts: Unapplied[], plan: PlannedQuestion): string {
      const lines = [m('unsupported.head', { names: parts.map((p) => L.quote(p.text)).join(', ') })];
      for (const p of parts) lines.push(m(`reason.${p.reason}`, { q: L.quote(p.text) }));
      // What the plan would have answered ("the number of findings with severity critical").
      const scoped = 'filter' in plan ? scopePhrase(plan.filter, plan.scope) : '';
      const withScope = scoped ? m('understood.scope', { scope: scoped }) : '';
      const groupBy = 'groupBy' in plan ? plan.groupBy : undefined;
      // Each kind a refusal can describe has its message; any other is described generally.
      const kind = L.messages.has(`understood.${plan.kind}`) ? plan.kind : 'other';
      const understood = m(`understood.${kind}`, { withScope, groupBy });
      lines.push(m('unsupported.instead', { understood, parts: parts.length }));
      const topicLike = parts.find((p) => p.topicLike);
      if (topicLike)
        lines.push(m('unsupported.topic', { q: L.quote(topicLike.text), words: words(topicLike.text) }));
      return lines.join('\n');
    },
    /** A report named by part of its file name matches no report, or several. */
    reportHint(hint: { text: string; loose: boolean }, matches: string[]): string {
      const q = L.quote(hint.text);
      if (!matches.length) return m('hint.none', { q, loose: hint.loose, words: words(hint.text) });
      const lines = [m('hint.several', { q })];
      for (const name of matches.slice(0, 20)) lines.push(`- ${md(name)}`);
      if (matches.length > 20) lines.push('- …');
      lines.push('', m('hint.again'));
      return lines.join('\n');
    },
    /** "What percentage of … are …": both exact totals and the share they give (one decimal). */
    share: (part: SearchFindingsResult, whole: SearchFindingsResult) =>
      m('share', {
        part: part.total,
        whole: whole.total,
        scope: scopePhrase(whole.filter),
        partScope: scopePhrase(part.filter),
        pct: whole.total
          ? m('share.pct', { pct: L.decimal((100 * part.total) / whole.total) })
          : m('share.empty'),
      }),
    /**
     * A message that states no count (a refusal, a note, a heading), the words in `params` escaped;
     * `{capabilities}` says what the planner answers.
     */
    say: (key: keyof (typeof MESSAGES)['en'], params: MessageParams = {}) =>
      m(key, {
        capabilities,
        ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? md(v) : v])),
      }),
  };
}
export type AnswerWriter = ReturnType<typeof writerFor>;

const WRITERS = { en: writerFor(answerLanguage('en')), ru: writerFor(answerLanguage('ru')) };

/** The writer for a turn's language (`en` when the turn names none). */
export const answerWriter = (language: OperatorLanguage = 'en'): AnswerWriter =>
  WRITERS[language] ?? WRITERS.en;
