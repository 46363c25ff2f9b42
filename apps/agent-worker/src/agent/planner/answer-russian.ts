/**
 * Russian for the answer writer: labels, and the answers worded too freely for a template
 * (numbers grouped the Russian way, nouns agreeing with their number).
 */
import { SEVERITIES, type FindingFilter } from '@corpus-chat/contracts';
import { QUOTE_MAX_CHARS, cut, md } from './answer-text';
import { classNote, scopePhrase, type AnswerLanguage, type ScopedCount } from './answer-writer';
import {
  FINDINGS,
  REPORT_STATUS_RU,
  SEVERITY_RU,
  STATUS_RU,
  VERDICT_RU,
  ruDecimal,
  ruForm,
  ruNumber,
  ruSeverityList,
} from './russian-words';

/** The operator's words, cut and escaped, in Russian quotes. */
const ruQuote = (s: string): string => `«${md(cut(s, QUOTE_MAX_CHARS))}»`;

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

function scopedCountAnswer(c: ScopedCount, note?: string): string {
  const base = scopePhrase(RUSSIAN, c.filter);
  const subject = `**${ruNumber(c.total)}** ${ruForm(c.total, FINDINGS)}${base ? ` с условием «${base}»${classNote(RUSSIAN, c.filter)}` : ''}`;
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

export const RUSSIAN: AnswerLanguage = {
  locale: 'ru',
  num: ruNumber,
  decimal: ruDecimal,
  quote: ruQuote,
  severity: (s) => SEVERITY_RU[s],
  severityList: (set) => ruSeverityList(set, SEVERITIES),
  verdict: (v) => VERDICT_RU[v],
  status: (s) => STATUS_RU[s],
  reportStatus: (s) => REPORT_STATUS_RU[s] ?? s,
  scopedCount: scopedCountAnswer,
  /** CWE ids as in English; severities, verdicts and statuses in Russian (`groupValue`). */
  cweLabel: (g) =>
    g.key === 'none'
      ? 'без CWE'
      : /^cwe-/i.test(g.label)
        ? md(g.label)
        : `CWE-${md(g.key)}${g.label && g.label !== g.key ? ` ${md(g.label)}` : ''}`,
  groupValue(groupBy, key) {
    if (groupBy === 'severity') return SEVERITY_RU[key as keyof typeof SEVERITY_RU];
    if (groupBy === 'verdict') return VERDICT_RU[key as keyof typeof VERDICT_RU];
    if (groupBy === 'status') return STATUS_RU[key as keyof typeof STATUS_RU];
    return undefined;
  },
};
