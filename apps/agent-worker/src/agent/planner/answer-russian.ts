/**
 * Russian number formats and labels for the answer writer (the sentences, with their plural
 * agreement, are in `answer-messages.json`).
 */
import {
  SEVERITIES,
  type ReportStatus,
  type Severity,
  type TriageStatus,
  type VerdictStatus,
} from '@corpus-chat/contracts';
import { QUOTE_MAX_CHARS, cut, md } from './answer-text';
import type { AnswerLanguage } from './answer-writer';

const NUMBERS = new Intl.NumberFormat('ru');
const DECIMAL = new Intl.NumberFormat('ru', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A number as Russian writes it: `3 538` (a no-break space groups thousands), `12,5` for a decimal. */
const ruNumber = (n: number): string => NUMBERS.format(n);
/** One decimal the Russian way (`12,5`). */
const ruDecimal = (n: number): string => DECIMAL.format(n);

const SEVERITY_RU: Record<Severity, string> = {
  critical: 'критическая',
  high: 'высокая',
  medium: 'средняя',
  low: 'низкая',
  info: 'информационная',
};
const VERDICT_RU: Record<VerdictStatus | 'none', string> = {
  still_open: 'всё ещё открыта',
  fixed: 'исправлена',
  inconclusive: 'не определён',
  none: 'без вердикта',
};
const STATUS_RU: Record<TriageStatus, string> = {
  open: 'открыта',
  confirmed: 'подтверждена',
  false_positive: 'ложное срабатывание',
  risk_accepted: 'риск принят',
  fixed: 'исправлена',
  needs_review: 'ждёт проверки',
};
const REPORT_STATUS_RU: Record<ReportStatus, string> = {
  extracting: 'извлекается',
  needs_review: 'ждёт проверки',
  ready: 'готов',
  failed: 'ошибка',
  cancelled: 'отменён',
};

/** "критическая или высокая", "критическая, высокая или средняя". */
function ruSeverityList(set: readonly Severity[]): string {
  const ordered = SEVERITIES.filter((s) => set.includes(s)).map((s) => SEVERITY_RU[s]);
  if (ordered.length <= 1) return ordered.join('');
  return `${ordered.slice(0, -1).join(', ')} или ${ordered.at(-1)}`;
}

/** The operator's words, cut and escaped, in Russian quotes. */
const ruQuote = (s: string): string => `«${md(cut(s, QUOTE_MAX_CHARS))}»`;

export const RUSSIAN: AnswerLanguage = {
  locale: 'ru',
  num: ruNumber,
  decimal: ruDecimal,
  quote: ruQuote,
  severity: (s) => SEVERITY_RU[s],
  severityList: ruSeverityList,
  verdict: (v) => VERDICT_RU[v],
  status: (s) => STATUS_RU[s],
  reportStatus: (s) => REPORT_STATUS_RU[s] ?? s,
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
