/**
 * The answer languages. A language is its digits and its messages (`answer-messages.json`): the
 * labels of severities, verdicts and statuses are messages (`label.*`) like the sentences. Text
 * from the corpus or the operator is escaped for Markdown (and the operator's cut) the same in all.
 *
 * The messages are ICU-style, the subset the answers use: `{name}` (a number in the language's
 * digits), `{name, number}` (grouped digits), `{name, plural, one {# finding} other {# findings}}`
 * (`#` is the number; CLDR plural categories, a Russian fraction taking `few` as the grammar wants)
 * and `{name, select, cwe {…} other {…}}` (`none` matches an empty, false or missing value, `yes` true).
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
import MESSAGES from './answer-messages.json';

export type MessageParams = Record<string, string | number | boolean | null | undefined>;

/** What the writer words an answer with: a language's messages, number formats and labels. */
export type AnswerLanguage = ReturnType<typeof language>;

const RU_DECIMAL = new Intl.NumberFormat('ru', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
/** English digits as they are (`3538`, `12.5`); Russian groups thousands (`3 538`, `12,5`). */
const DIGITS: Record<OperatorLanguage, { num(n: number): string; decimal(n: number): string }> = {
  en: { num: String, decimal: (n) => n.toFixed(1) },
  ru: { num: new Intl.NumberFormat('ru').format, decimal: RU_DECIMAL.format },
};

function language(locale: OperatorLanguage) {
  const table: Record<string, string> = MESSAGES[locale];
  const num = DIGITS[locale].num;
  const rules = new Intl.PluralRules(locale);
  const grouped = new Intl.NumberFormat(locale);
  const has = (key: string): boolean => Object.hasOwn(table, key);
  /** The message `key` with `params` filled in (they are inserted as given: escape before). */
  const format = (key: string, params: MessageParams = {}): string => {
    if (!has(key)) throw new Error(`answer-messages.json: no message "${key}"`);
    return fill(table[key], params);
  };
  function fill(template: string, params: MessageParams, hash?: string): string {
    let out = '';
    for (let i = 0; i < template.length; i++) {
      if (template[i] !== '{') out += template[i] === '#' && hash !== undefined ? hash : template[i];
      else {
        const end = closing(template, i);
        out += argument(template.slice(i + 1, end), params);
        i = end;
      }
    }
    return out;
  }
  function argument(body: string, params: MessageParams): string {
    const [name, type] = body.split(',', 2).map((s) => s.trim());
    const value = params[name];
    if (!type) return typeof value === 'number' ? num(value) : String(value ?? '');
    if (type === 'number') return grouped.format(Number(value));
    const branches = new Map<string, string>();
    const rest = body.slice(body.indexOf(',', body.indexOf(',') + 1) + 1);
    for (let i = 0, open = rest.indexOf('{'); open >= 0; open = rest.indexOf('{', i)) {
      const end = closing(rest, open);
      branches.set(rest.slice(i, open).trim(), rest.slice(open + 1, end));
      i = end + 1;
    }
    if (type === 'plural') {
      const n = Number(value);
      const category = rules.select(n);
      // A Russian fraction is "other", but the grammar wants the "few" form.
      const branch = branches.get(category) ?? (category === 'other' ? branches.get('few') : undefined);
      return fill(branch ?? branches.get('other') ?? '', params, num(n));
    }
    const key =
      value === '' || value === false || value == null ? 'none' : value === true ? 'yes' : String(value);
    return fill(branches.get(key) ?? branches.get('other') ?? '', params);
  }
  const m = (key: string, params = {}) => format(`label.${key}`, params);
  const severity = (s: Severity) => m('severity', { s });
  return {
    /** Its messages (`answer-messages.json`), formatted in its digits. */
    messages: { format, has },
    ...DIGITS[locale],
    quote: (s: string) => m('quote', { q: words(s) }),
    severity,
    /** "critical 3, high 5": labels with their counts. */
    tally: (pairs: [string, number][], sep = ', ') => pairs.map(([l, n]) => `${l} ${num(n)}`).join(sep),
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
     * A group's label: severities, verdicts, statuses and "no CWE" worded; others as the tools
     * return them.
     */
    groupLabel(groupBy: GroupByKey, g: { key: string; label: string }) {
      if (groupBy === 'severity' || groupBy === 'verdict' || groupBy === 'status')
        return m(groupBy, { s: g.key, v: g.key });
      return groupBy === 'cwe' && g.key === 'none' ? m('noCwe') : md(g.label);
    },
  };
}

/** The index of the `}` closing the `{` at `open`. */
function closing(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return i;
  }
  throw new Error(`answer-messages.json: unclosed "{" in "${s}"`);
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
