/**
 * The answer languages. A language is its digits and its messages (`answer-messages.json`): the
 * labels of severities, verdicts and statuses are messages (`label.*`) like the sentences.
 */
import { SEVERITIES, type OperatorLanguage } from '@corpus-chat/contracts';
import { md, words } from './answer-text';
import { MessageFormat } from './answer-format';
import MESSAGES from './answer-messages.json';
import { writerFor, type AnswerLanguage, type AnswerWriter } from './answer-writer';

export type { AnswerWriter };

const RU_DECIMAL = new Intl.NumberFormat('ru', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
/** English digits as they are (`3538`, `12.5`); Russian groups thousands (`3 538`, `12,5`). */
const DIGITS: Record<OperatorLanguage, Pick<AnswerLanguage, 'num' | 'decimal'>> = {
  en: { num: String, decimal: (n) => n.toFixed(1) },
  ru: { num: new Intl.NumberFormat('ru').format, decimal: RU_DECIMAL.format },
};

function language(locale: OperatorLanguage): AnswerLanguage {
  const m = (key: string, params = {}) => L.messages.format(`label.${key}`, params);
  const L: AnswerLanguage = {
    locale,
    messages: new MessageFormat(locale, MESSAGES[locale], DIGITS[locale].num),
    ...DIGITS[locale],
    quote: (s) => m('quote', { q: words(s) }),
    severity: (s) => m('severity', { s }),
    /** "critical or high", "critical, high or medium" (most severe first). */
    severityList(set) {
      const ordered = SEVERITIES.filter((s) => set.includes(s)).map(L.severity);
      if (ordered.length <= 1) return ordered.join('');
      return m('or', { head: ordered.slice(0, -1).join(', '), last: ordered.at(-1) });
    },
    verdict: (v) => m('verdict', { v }),
    status: (s) => m('status', { s }),
    reportStatus: (s) => m('reportStatus', { s }),
    /** `CWE-79` (or `CWE-79 Cross-site Scripting` when the query layer gave a name), `no CWE`. */
    cweLabel(g) {
      if (g.key === 'none') return m('noCwe');
      const id = `CWE-${md(g.key)}`;
      const label = (g.label ?? '').trim();
      if (!label || label === g.key || label.toUpperCase() === `CWE-${g.key}`) return id;
      if (label.toUpperCase().startsWith(`CWE-${g.key}`)) return md(label);
      return `${id} ${md(label)}`;
    },
    groupValue: (groupBy, key) =>
      groupBy === 'severity' || groupBy === 'verdict' || groupBy === 'status'
        ? m(groupBy, { s: key, v: key })
        : undefined,
  };
  return L;
}

const LANGUAGES = { en: language('en'), ru: language('ru') };
export const answerLanguage = (locale: OperatorLanguage): AnswerLanguage => LANGUAGES[locale];
const WRITERS = { en: writerFor(LANGUAGES.en), ru: writerFor(LANGUAGES.ru) };

/** The writer for a turn's language (`en` when the turn names none). */
export const answerWriter = (language: OperatorLanguage = 'en'): AnswerWriter =>
  WRITERS[language] ?? WRITERS.en;
