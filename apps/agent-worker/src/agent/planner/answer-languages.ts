/**
 * The answer languages. A language is its digits and its messages (`answer-messages.json`): the
 * labels of severities, verdicts and statuses are messages (`label.*`) like the sentences.
 */
import {
  SEVERITIES,
  type GroupByKey,
  type OperatorLanguage,
  type ReportStatus,
  type Severity,
  type TriageStatus,
  type VerdictStatus,
} from '@corpus-chat/contracts';
import { md, words } from './answer-text';
import { MessageFormat } from './answer-format';
import MESSAGES from './answer-messages.json';
import { writerFor, type AnswerWriter } from './answer-writer';

export type { AnswerWriter };
/** What the writer words an answer with: a language's messages, number formats and labels. */
export type AnswerLanguage = ReturnType<typeof language>;

const RU_DECIMAL = new Intl.NumberFormat('ru', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
/** English digits as they are (`3538`, `12.5`); Russian groups thousands (`3 538`, `12,5`). */
const DIGITS: Record<OperatorLanguage, { num(n: number): string; decimal(n: number): string }> = {
  en: { num: String, decimal: (n) => n.toFixed(1) },
  ru: { num: new Intl.NumberFormat('ru').format, decimal: RU_DECIMAL.format },
};

function language(locale: OperatorLanguage) {
  const messages = new MessageFormat(locale, MESSAGES[locale], DIGITS[locale].num);
  const m = (key: string, params = {}) => messages.format(`label.${key}`, params);
  const severity = (s: Severity) => m('severity', { s });
  return {
    /** Its messages (`answer-messages.json`), formatted in its digits. */
    messages,
    ...DIGITS[locale],
    quote: (s: string) => m('quote', { q: words(s) }),
    severity,
    /** "critical 3, high 5": labels with their counts. */
    tally: (pairs: [string, number][], sep = ', ') =>
      pairs.map(([l, n]) => `${l} ${DIGITS[locale].num(n)}`).join(sep),
    /** "critical or high", "critical, high or medium" (most severe first). */
    severityList(set: readonly Severity[]) {
      const ordered = SEVERITIES.filter((s) => set.includes(s)).map(severity);
      if (ordered.length <= 1) return ordered.join('');
      return m('or', { head: ordered.slice(0, -1).join(', '), last: ordered.at(-1) });
    },
    verdict: (v: VerdictStatus | 'none') => m('verdict', { v }),
    status: (s: TriageStatus) => m('status', { s }),
    reportStatus: (s: ReportStatus) => m('reportStatus', { s }),
    /**
     * A group's label: severities, verdicts and statuses worded; `CWE-79` (or `CWE-79 Cross-site
     * Scripting` when the query layer gave a name), `no CWE`; other labels as the tools return them.
     */
    groupLabel(groupBy: GroupByKey, g: { key: string; label: string }) {
      if (groupBy === 'severity' || groupBy === 'verdict' || groupBy === 'status')
        return m(groupBy, { s: g.key, v: g.key });
      if (groupBy !== 'cwe') return md(g.label);
      if (g.key === 'none') return m('noCwe');
      const id = `CWE-${md(g.key)}`;
      const label = (g.label ?? '').trim();
      if (!label || label === g.key || label.toUpperCase() === `CWE-${g.key}`) return id;
      if (label.toUpperCase().startsWith(`CWE-${g.key}`)) return md(label);
      return `${id} ${md(label)}`;
    },
  };
}

const LANGUAGES = { en: language('en'), ru: language('ru') };
export const answerLanguage = (locale: OperatorLanguage): AnswerLanguage => LANGUAGES[locale];
const WRITERS = { en: writerFor(LANGUAGES.en), ru: writerFor(LANGUAGES.ru) };

/** The writer for a turn's language (`en` when the turn names none). */
export const answerWriter = (language: OperatorLanguage = 'en'): AnswerWriter =>
  WRITERS[language] ?? WRITERS.en;
