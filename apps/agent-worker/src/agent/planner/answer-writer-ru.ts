/**
 * The planner's answers in Russian: the same facts, tool names and order as `answer-writer.ts`,
 * worded for a Russian-speaking operator (numbers grouped the Russian way, nouns agreeing with
 * their number). Report file names, CWE ids and tool names stay as the tools return them.
 */
import {
  SEVERITIES,
  VERDICT_STATUSES,
  type AppliedFilter,
  type ComputedScope,
  type CorpusOverview,
  type CountFindingsByResult,
  type FindingDetail,
  type FindingFilter,
  type ReportSummary,
  type SearchFindingsResult,
} from '@corpus-chat/contracts';
import { QUOTE_MAX_CHARS, cut, md } from './answer-text';
import { rankedGroups, type ScopedCount } from './answer-writer';
import { breakdownRows, followUpSegments, rankableGroups, reportTally } from './answer-rows';
import type { PlannedScope } from './question-plan';
import {
  FINDINGS,
  REPORTS,
  REPORT_STATUS_RU,
  SEVERITY_RU,
  STATUS_RU,
  VERDICT_RU,
  ruCount,
  ruForm,
  ruNumber,
  ruSeverityList,
  type RussianForms,
} from './russian-words';

/** The operator's words, cut and escaped, in Russian quotes. */
export const ruQuote = (s: string): string => `«${md(cut(s, QUOTE_MAX_CHARS))}»`;

/** Each part of a scope in Russian, keyed like `scopeParts`. */
export function ruScopeParts(f: FindingFilter | AppliedFilter, scope?: ComputedScope): Map<string, string> {
  const parts = new Map<string, string>();
  if (f.severity) parts.set('severity', `серьёзность ${SEVERITY_RU[f.severity]}`);
  else if (scope?.severities)
    parts.set('severity', `серьёзность ${ruSeverityList(scope.severities, SEVERITIES)}`);
  if (f.text) parts.set('text', `текст ${ruQuote(f.text)}`);
  const reportFilename = (f as AppliedFilter).reportFilename ?? f.reportName;
  if (reportFilename) parts.set('report', `отчёт ${md(reportFilename)}`);
  else if (f.reportId != null) parts.set('report', `отчёт #${f.reportId}`);
  if (f.format) parts.set('format', `формат ${f.format}`);
  if (f.scanner) parts.set('scanner', `сканер ${ruQuote(f.scanner)}`);
  if (f.includeArchived) parts.set('archived', 'включая архивные отчёты');
  if (f.cwe != null) parts.set('cwe', `CWE-${f.cwe}`);
  if (f.verdict) parts.set('verdict', `вердикт «${VERDICT_RU[f.verdict]}»`);
  if (f.status) parts.set('status', `статус триажа «${STATUS_RU[f.status]}»`);
  if (scope?.exclude) parts.set('exclude', `кроме: ${[...ruScopeParts(scope.exclude).values()].join(' и ')}`);
  if (scope?.has)
    parts.set(
      'has',
      `${scope.has.present ? 'с' : 'без'} ${scope.has.key === 'cwe' ? 'идентификатор' : 'вердикт'}${scope.has.present ? 'ом' : 'а'}${scope.has.key === 'cwe' ? ' CWE' : ''}`,
    );
  return parts;
}

export const ruScopePhrase = (f: FindingFilter | AppliedFilter, scope?: ComputedScope): string =>
  [...ruScopeParts(f, scope).values()].join(', ');

function classNote(f: AppliedFilter): string {
  if (!f.weaknessClasses?.length) return '';
  return ` (текст также соответствует ${f.weaknessClasses.map((c) => `классу ${md(c.name)}: ${c.cwe.map((id) => `CWE-${id}`).join(', ')}`).join('; ')})`;
}

export function ruFollowUpNote(previous: PlannedScope, asked: PlannedScope, merged: PlannedScope): string {
  const segments = followUpSegments(
    ruScopeParts(previous.filter, previous.scope),
    ruScopeParts(merged.filter, merged.scope),
    ruScopeParts(asked.filter, asked.scope),
    {
      instead: (phrase, before) => `${phrase} вместо: ${before}`,
      dropped: (phrase) => `убрано: ${phrase}`,
      added: (phrases) => `добавлено: ${phrases}`,
      kept: (phrases) => `сохранено: ${phrases}`,
    },
  );
  return segments.length
    ? `Уточнение предыдущего вопроса — ${segments.join('; ')}.`
    : 'Уточнение предыдущего вопроса, с тем же фильтром.';
}

export function ruCountAnswer(r: SearchFindingsResult, opts: { note?: string } = {}): string {
  const scope = ruScopePhrase(r.filter);
  const head = !scope
    ? `Всего **${ruNumber(r.total)}** ${ruForm(r.total, FINDINGS)}. Точный итог из search_findings, без фильтра.`
    : `**${ruNumber(r.total)}** ${ruForm(r.total, { one: 'находка соответствует', few: 'находки соответствуют', many: 'находок соответствуют' })} условию: ${scope}${classNote(r.filter)}. Точный итог из search_findings.`;
  const lines = [opts.note ? `${head} ${opts.note}` : head];
  if (r.rows.length) {
    const shown = r.rows.length;
    lines.push('', r.total > shown ? `Первые ${shown}:` : shown === 1 ? 'Вот она:' : 'Вот они:');
    for (const row of r.rows)
      lines.push(
        `- #${row.id} ${md(row.title)} (${SEVERITY_RU[row.severity]}${row.reportFilename ? `, ${md(row.reportFilename)}` : ''})`,
      );
  }
  return lines.join('\n');
}

function exclusionPhrase(e: FindingFilter): string {
  if (e.text) return `не соответствуют тексту ${ruQuote(e.text)}`;
  if (e.verdict)
    return e.verdict === 'fixed'
      ? 'не помечены исправленными'
      : `не имеют вердикта «${VERDICT_RU[e.verdict]}»`;
  if (e.status) return `не имеют статуса триажа «${STATUS_RU[e.status]}»`;
  if (e.reportName || e.reportId != null)
    return `не входят в отчёт ${e.reportName ? md(e.reportName) : `#${e.reportId}`}`;
  if (e.cwe != null) return `не помечены CWE-${e.cwe}`;
  return 'исключены';
}

export function ruScopedCountAnswer(c: ScopedCount, note?: string): string {
  const base = ruScopePhrase(c.filter);
  const subject = `**${ruNumber(c.total)}** ${ruForm(c.total, FINDINGS)}${base ? ` с условием «${base}»${classNote(c.filter)}` : ''}`;
  const lines: string[] = [];
  if (c.scope.has && c.presence) {
    const what = c.scope.has.key === 'cwe' ? 'идентификатор CWE' : 'вердикт';
    lines.push(
      c.scope.has.present
        ? `${subject}: есть хотя бы один ${what} — всего ${ruNumber(c.presence.all)}, минус ${ruNumber(c.presence.none)} без него.`
        : `${subject}: нет ни одного ${c.scope.has.key === 'cwe' ? 'идентификатора CWE' : 'вердикта'}, из ${ruNumber(c.presence.all)}.`,
    );
    lines.push(
      '',
      `Точные числа из count_findings_by, с группировкой по ${c.scope.has.key === 'cwe' ? 'CWE' : 'вердиктам'}.`,
    );
  } else {
    const rows = c.bySeverity ?? [];
    const counted = rows.map((r) => r.severity);
    const all = counted.length === SEVERITIES.length || !!c.filter.severity;
    const sevWords = all ? '' : `серьёзность ${ruSeverityList(counted, SEVERITIES)}`;
    const predicate = [sevWords, c.scope.exclude ? `находки ${exclusionPhrase(c.scope.exclude)}` : '']
      .filter(Boolean)
      .join('; ');
    const sum = (k: 'count' | 'excluded') => rows.reduce((n, r) => n + r[k], 0);
    if (c.scope.exclude) {
      const terms = all
        ? ''
        : ` (${rows.map((r) => `${SEVERITY_RU[r.severity]} ${ruNumber(r.count - r.excluded)}`).join(' + ')})`;
      lines.push(
        `${subject} (${predicate})${terms}: всего ${ruNumber(sum('count'))}, минус ${ruNumber(sum('excluded'))} исключённых.`,
      );
      lines.push(
        '',
        'Оба числа — точные итоги count_findings_by (с группировкой по серьёзности): без исключаемой части и с ней.',
      );
    } else {
      lines.push(
        `${subject} (${predicate}): ${rows.map((r) => `${SEVERITY_RU[r.severity]} ${ruNumber(r.count)}`).join(' + ')}.`,
      );
      lines.push(
        '',
        'Каждое слагаемое — точный итог count_findings_by (с группировкой по серьёзности); search_findings принимает одну серьёзность за раз.',
      );
    }
  }
  if (note) lines[0] += ` ${note}`;
  return lines.join('\n');
}

/** A group's label: CWE ids as in English, severities, verdicts and statuses in Russian. */
function groupLabel(groupBy: string, g: { key: string; label: string }): string {
  if (groupBy === 'cwe')
    return g.key === 'none'
      ? 'без CWE'
      : /^cwe-/i.test(g.label)
        ? md(g.label)
        : `CWE-${md(g.key)}${g.label && g.label !== g.key ? ` ${md(g.label)}` : ''}`;
  if (groupBy === 'severity') return SEVERITY_RU[g.key as keyof typeof SEVERITY_RU] ?? md(g.label);
  if (groupBy === 'verdict') return VERDICT_RU[g.key as keyof typeof VERDICT_RU] ?? md(g.label);
  if (groupBy === 'status') return STATUS_RU[g.key as keyof typeof STATUS_RU] ?? md(g.label);
  return md(g.label);
}

/** What a group is (nominative), how it is grouped ("по …"), and the noun counting the groups. */
const GROUP_RU: Record<string, { what: string; whats: string; by: string; forms: RussianForms }> = {
  report: { what: 'Отчёт', whats: 'отчёты', by: 'отчётам', forms: REPORTS },
  cwe: {
    what: 'CWE',
    whats: 'CWE',
    by: 'CWE',
    forms: { one: 'идентификатор CWE', few: 'идентификатора CWE', many: 'идентификаторов CWE' },
  },
  format: {
    what: 'Формат отчёта',
    whats: 'форматы отчётов',
    by: 'форматам отчётов',
    forms: { one: 'формат', few: 'формата', many: 'форматов' },
  },
  title: {
    what: 'Заголовок находки',
    whats: 'заголовки находок',
    by: 'заголовкам находок',
    forms: { one: 'заголовок', few: 'заголовка', many: 'заголовков' },
  },
  severity: {
    what: 'Серьёзность',
    whats: 'уровни серьёзности',
    by: 'серьёзности',
    forms: { one: 'уровень', few: 'уровня', many: 'уровней' },
  },
  verdict: {
    what: 'Вердикт',
    whats: 'вердикты',
    by: 'вердиктам',
    forms: { one: 'вердикт', few: 'вердикта', many: 'вердиктов' },
  },
  status: {
    what: 'Статус триажа',
    whats: 'статусы триажа',
    by: 'статусу триажа',
    forms: { one: 'статус', few: 'статуса', many: 'статусов' },
  },
};

function groupedSource(r: CountFindingsByResult, scope?: ComputedScope): string {
  const how = [
    scope?.severities && r.groupBy !== 'severity' ? 'по вызову на каждую серьёзность, сложено' : '',
    scope?.exclude ? 'минус те же числа для исключённых находок' : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `Точные числа из count_findings_by, с группировкой по ${GROUP_RU[r.groupBy].by}${how ? ` (${how})` : ''}.`;
}

export function ruTopAnswer(
  r: CountFindingsByResult,
  n: number,
  opts: { scope?: ComputedScope; note?: string } = {},
): string {
  const g = GROUP_RU[r.groupBy];
  const scope = ruScopePhrase(r.filter, opts.scope);
  const filterText = scope ? ` (${scope})` : '';
  const groups = rankableGroups(r);
  if (!groups.length)
    return `Нет ни одной находки${filterText} (всего ${ruNumber(r.total)}), поэтому ранжировать нечего.${opts.note ? ` ${opts.note}` : ''}`;
  const top = rankedGroups(r, n);
  const lines: string[] = [];
  if (n === 1 && top.length === 1) {
    const next = groups[1];
    lines.push(
      `${g.what} с наибольшим числом находок${filterText}: **${groupLabel(r.groupBy, top[0])}** — **${ruNumber(top[0].count)}**` +
        (next ? ` (следующий: ${groupLabel(r.groupBy, next)} — ${ruNumber(next.count)}).` : '.'),
    );
  } else {
    lines.push(
      n === 1
        ? `Поровну больше всего находок${filterText} — ${g.whats}:`
        : `Топ-${n}: ${g.whats} по числу находок${filterText}${top.length > n ? ' (с равными значениями)' : ''}:`,
    );
    top.forEach((x, i) => lines.push(`${i + 1}. **${groupLabel(r.groupBy, x)}**: ${ruNumber(x.count)}`));
  }
  if (opts.note) lines[0] += ` ${opts.note}`;
  lines.push(
    '',
    `${groupedSource(r, opts.scope)} Всего ${ruCount(r.total, FINDINGS)}; в сравнении ${ruCount(groups.length, g.forms)}.`,
  );
  return lines.join('\n');
}

export function ruBreakdownAnswer(
  r: CountFindingsByResult,
  opts: { scope?: ComputedScope; note?: string } = {},
): string {
  const scope = ruScopePhrase(r.filter, opts.scope);
  const lines = [
    `Находки по ${GROUP_RU[r.groupBy].by}${scope ? ` (${scope})` : ''}, всего ${ruCount(r.total, FINDINGS)}:`,
  ];
  if (opts.note) lines[0] += ` ${opts.note}`;
  lines.push(
    ...breakdownRows(r, opts.scope, {
      severity: (s) => SEVERITY_RU[s],
      verdict: (v) => VERDICT_RU[v],
      group: (x) => groupLabel(r.groupBy, x),
      count: ruNumber,
      more: (hidden) => `и ещё ${ruCount(hidden, GROUP_RU[r.groupBy].forms)}`,
      cweNote: 'Находка с несколькими идентификаторами CWE учитывается под каждым из них.',
    }),
  );
  lines.push('', groupedSource(r, opts.scope));
  return lines.join('\n');
}

export function ruReportCountAnswer(reports: ReportSummary[]): string {
  const { byStatus, findings } = reportTally(reports);
  const statuses = byStatus
    .map(([s, n]) => `${REPORT_STATUS_RU[s as keyof typeof REPORT_STATUS_RU] ?? s}: ${ruNumber(n)}`)
    .join(', ');
  return `Всего **${ruNumber(reports.length)}** ${ruForm(reports.length, REPORTS)}${statuses ? ` (${statuses})` : ''}, в них ${ruCount(findings, FINDINGS)}. Из list_all_reports; архивные отчёты не учитываются.`;
}

export function ruReportListAnswer(reports: ReportSummary[]): string {
  if (!reports.length)
    return 'Отчётов пока нет (list_all_reports не вернул ни одного). Импортируйте файл сканера на странице «Отчёты».';
  const lines = [
    `Всего **${ruNumber(reports.length)}** ${ruForm(reports.length, REPORTS)} (из list_all_reports; архивные не показаны):`,
  ];
  for (const r of reports.slice(0, 100)) {
    const sev = SEVERITIES.filter((s) => r.bySeverity[s])
      .map((s) => `${SEVERITY_RU[s]} ${ruNumber(r.bySeverity[s])}`)
      .join(', ');
    lines.push(
      `- #${r.id} **${md(r.filename)}** (${r.format}, ${REPORT_STATUS_RU[r.status] ?? r.status}): ${ruCount(r.findingCount, FINDINGS)}${sev ? ` — ${sev}` : ''}`,
    );
  }
  if (reports.length > 100) lines.push(`- … и ещё ${ruCount(reports.length - 100, REPORTS)}`);
  return lines.join('\n');
}

export function ruReportsWithAnswer(
  r: CountFindingsByResult,
  opts: { scope?: ComputedScope; note?: string } = {},
): string {
  const groups = r.groups.filter((x) => x.count > 0);
  const scope = ruScopePhrase(r.filter, opts.scope) || 'без фильтра';
  const lines = [
    `Находки с условием (${scope}) есть в **${ruNumber(groups.length)}** ${ruForm(groups.length, { one: 'отчёте', few: 'отчётах', many: 'отчётах' })}, всего ${ruCount(r.total, { one: 'такая находка', few: 'такие находки', many: 'таких находок' })}.`,
  ];
  if (opts.note) lines[0] += ` ${opts.note}`;
  for (const x of groups.slice(0, 20)) lines.push(`- ${md(x.label)}: ${ruNumber(x.count)}`);
  if (groups.length > 20) lines.push(`- … и ещё ${ruCount(groups.length - 20, REPORTS)}`);
  lines.push('', groupedSource(r, opts.scope));
  return lines.join('\n');
}

export function ruOverviewAnswer(o: CorpusOverview): string {
  const lines = [
    `В корпусе **${ruNumber(o.reports.total)}** ${ruForm(o.reports.total, REPORTS)} и **${ruNumber(o.findings.total)}** ${ruForm(o.findings.total, FINDINGS)} (из get_corpus_overview).`,
    '',
    `Находки по серьёзности: ${SEVERITIES.map((s) => `${SEVERITY_RU[s]} ${ruNumber(o.findings.bySeverity[s])}`).join(', ')}.`,
    `Вердикты: ${VERDICT_STATUSES.map((v) => `${VERDICT_RU[v]} ${ruNumber(o.verdicts[v] ?? 0)}`).join(', ')}.`,
  ];
  const top = [...o.perReport].sort((a, b) => b.total - a.total).slice(0, 5);
  if (top.length) {
    lines.push('', 'Крупнейшие отчёты:');
    for (const r of top) lines.push(`- ${md(r.filename)}: ${ruNumber(r.total)}`);
  }
  return lines.join('\n');
}

export function ruDetailAnswer(f: FindingDetail): string {
  const c = f.current;
  const lines = [`**Находка #${f.id}: ${md(c.title)}**`, ''];
  lines.push(
    `- Серьёзность: ${SEVERITY_RU[c.severity]}${c.cvss?.base_score != null ? ` (CVSS ${c.cvss.base_score})` : ''}`,
  );
  lines.push(`- Отчёт: ${f.reportFilename ? md(f.reportFilename) : 'нет (введена вручную)'}`);
  lines.push(`- CWE: ${c.cwe.length ? c.cwe.map((id) => `CWE-${id}`).join(', ') : 'нет'}`);
  lines.push(`- Последний вердикт: ${f.latestVerdict ? VERDICT_RU[f.latestVerdict.status] : 'нет'}`);
  lines.push(`- Версий: ${f.versionCount}`);
  if (c.affectedEndpoints.length)
    lines.push(
      `- Затронуто: ${c.affectedEndpoints.slice(0, 5).map(md).join(', ')}${c.affectedEndpoints.length > 5 ? ', …' : ''}`,
    );
  // The scanner's own text stays as it was written.
  if (c.description) lines.push('', md(cut(c.description, 800)));
  if (c.impact) lines.push('', `Влияние: ${md(cut(c.impact, 400))}`);
  return lines.join('\n');
}
