/**
 * The answer languages. A language is its digits and its messages (`answer-messages.json`): the
 * labels of severities, verdicts and statuses are messages (`label.*`) like the sentences. Text
 * from the corpus or the operator is escaped for Markdown (and the operator's cut) the same in all.
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
import { MessageFormat } from './answer-format';
import MESSAGES from './answer-messages.json';

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

/** How much of the operator's own words an answer repeats (characters; longer is cut with "…"). */
export const QUOTE_MAX_CHARS = 80;
/** Cuts `s` to at most `n` code points, ending in "…" when cut (never inside a surrogate pair). */
export const cut = (s: string, n: number) => {
  if (s.length <= n) return s;
  const points = Array.from(s);
  const kept = points.slice(0, n - 1).join('');
  return points.length > n ? `${kept.trimEnd()}…` : s;
};
/** The operator's words, cut to {@link QUOTE_MAX_CHARS} and escaped, for repeating them in an answer. */
export const words = (s: string) => md(cut(s, QUOTE_MAX_CHARS));
