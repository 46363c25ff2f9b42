import type { ReportStatus, Severity, TriageStatus, VerdictStatus } from '@corpus-chat/contracts';

/** The forms of a Russian noun phrase after a number: 1 находка, 2 находки, 5 находок. */
export interface RussianForms {
  one: string;
  few: string;
  many: string;
}

const RULES = new Intl.PluralRules('ru');
const NUMBERS = new Intl.NumberFormat('ru');
const DECIMAL = new Intl.NumberFormat('ru', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** A number as Russian writes it: `3 538` (a no-break space groups thousands), `12,5` for a decimal. */
export const ruNumber = (n: number): string => NUMBERS.format(n);
/** One decimal the Russian way (`12,5`). */
export const ruDecimal = (n: number): string => DECIMAL.format(n);

/** The form of `forms` that agrees with `n` (CLDR plural rules for Russian; a fraction takes the "few" form). */
export function ruForm(n: number, forms: RussianForms): string {
  const rule = RULES.select(n);
  return rule === 'one' ? forms.one : rule === 'few' || rule === 'other' ? forms.few : forms.many;
}

/** `n` and the agreeing form: "1 находка", "2 находки", "5 находок", "3 538 находок". */
export const ruCount = (n: number, forms: RussianForms): string => `${ruNumber(n)} ${ruForm(n, forms)}`;

export const FINDINGS: RussianForms = { one: 'находка', few: 'находки', many: 'находок' };
export const REPORTS: RussianForms = { one: 'отчёт', few: 'отчёта', many: 'отчётов' };

export const SEVERITY_RU: Record<Severity, string> = {
  critical: 'критическая',
  high: 'высокая',
  medium: 'средняя',
  low: 'низкая',
  info: 'информационная',
};
export const VERDICT_RU: Record<VerdictStatus | 'none', string> = {
  still_open: 'всё ещё открыта',
  fixed: 'исправлена',
  inconclusive: 'не определён',
  none: 'без вердикта',
};
export const STATUS_RU: Record<TriageStatus, string> = {
  open: 'открыта',
  confirmed: 'подтверждена',
  false_positive: 'ложное срабатывание',
  risk_accepted: 'риск принят',
  fixed: 'исправлена',
  needs_review: 'ждёт проверки',
};
export const REPORT_STATUS_RU: Record<ReportStatus, string> = {
  extracting: 'извлекается',
  needs_review: 'ждёт проверки',
  ready: 'готов',
  failed: 'ошибка',
  cancelled: 'отменён',
};

/** "критическая или высокая", "критическая, высокая или средняя". */
export function ruSeverityList(set: readonly Severity[], order: readonly Severity[]): string {
  const ordered = order.filter((s) => set.includes(s)).map((s) => SEVERITY_RU[s]);
  if (ordered.length <= 1) return ordered.join('');
  return `${ordered.slice(0, -1).join(', ')} или ${ordered.at(-1)}`;
}
