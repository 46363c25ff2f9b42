/**
 * The planner's answers in Russian that carry no count (what it can answer, refusals, parts it
 * could not apply, report names it could not resolve), and its comparison and share answers.
 * Mirrors the English texts of `answer-writer.ts`, `scan-comparison.ts` and `share-answer.ts`.
 */
import type { ScanComparison, SearchFindingsResult } from '@corpus-chat/contracts';
import { QUOTE_MAX_CHARS, cut, md } from './answer-text';
import { ruQuote, ruScopePhrase } from './answer-writer-ru';
import type { PlannedQuestion, Unapplied } from './question-plan';
import type { ComparisonPlan } from './scan-comparison';
import { FINDINGS, SEVERITY_RU, ruCount, ruDecimal, ruForm, ruNumber } from './russian-words';

export const RU_CAPABILITIES =
  'Я отвечаю на вопросы об импортированных отчётах и их находках точными числами из запросов только на чтение, например:\n' +
  '- сколько всего отчётов или находок, в том числе определённой серьёзности (или нескольких, например «высокой или критической», «кроме информационных»), в отчёте, с вердиктом, статусом триажа или идентификатором CWE;\n' +
  '- сколько находок связано с темой, например SQL-инъекциями, XSS или jQuery (или не связано);\n' +
  '- в каком отчёте больше всего находок или критических, топ отчётов по серьёзности;\n' +
  '- распределение находок по серьёзности, CWE, вердикту или статусу триажа;\n' +
  '- список отчётов и подробности находки по её номеру;\n' +
  '- уточнения вроде «а сколько из них высоких?» или «покажи первую».\n\n' +
  'Это встроенный планировщик. Для других вопросов администратор может настроить сервер модели в настройках.';

export function ruOutOfScopeAnswer(reason: 'write' | 'unknown'): string {
  if (reason === 'write') {
    return `Этого я сделать не могу: я только читаю корпус, и ни один мой инструмент не может удалять, менять или импортировать данные. Отчётами управляют на странице «Отчёты».\n\n${RU_CAPABILITIES}`;
  }
  return `На это я не могу ответить по данным корпуса.\n\n${RU_CAPABILITIES}`;
}

export function ruTooLongAnswer(length: number, max: number): string {
  return (
    `Это сообщение длиной ${ruCount(length, { one: 'символ', few: 'символа', many: 'символов' })}; я читаю вопросы длиной до ${ruNumber(max)} символов, поэтому не стал его читать. ` +
    'Задавайте по одному вопросу, например «сколько находок связано с SQL-инъекциями?».\n\n' +
    RU_CAPABILITIES
  );
}

export const RU_NO_PREVIOUS_ANSWER =
  'В этой ветке нет ничего раньше, к чему это могло бы относиться (ни предыдущего подсчёта, ни показанной находки). Задайте вопрос целиком, например «сколько находок связано с SQL-инъекциями?» или «список отчётов».';

const GROUP_WHAT: Record<string, string> = {
  report: 'в каких отчётах',
  cwe: 'у каких CWE',
  format: 'в каких форматах',
  title: 'какие заголовки',
  severity: 'какая серьёзность',
  verdict: 'какой вердикт',
  status: 'какой статус',
};
const GROUP_BY: Record<string, string> = {
  report: 'отчётам',
  cwe: 'CWE',
  format: 'форматам',
  title: 'заголовкам',
  severity: 'серьёзности',
  verdict: 'вердиктам',
  status: 'статусу триажа',
};

/** What a plan would have answered, in Russian, for a refusal. */
export function ruUnderstoodPhrase(plan: PlannedQuestion): string {
  const scoped = 'filter' in plan ? ruScopePhrase(plan.filter, plan.scope) : '';
  const withScope = scoped ? ` с условием (${scoped})` : '';
  switch (plan.kind) {
    case 'count_findings':
      return `число находок${withScope}`;
    case 'top':
      return `${GROUP_WHAT[plan.groupBy]} больше всего находок${withScope}`;
    case 'breakdown':
      return `находки${withScope} по ${GROUP_BY[plan.groupBy]}`;
    case 'reports_with':
      return `в скольких отчётах есть находки${withScope}`;
    case 'count_reports':
      return 'число отчётов';
    case 'list_reports':
      return 'список отчётов';
    case 'overview':
      return 'обзор корпуса';
    default:
      return 'вопросы о корпусе';
  }
}

const REASON_TEXT: Record<Unapplied['reason'], (p: Unapplied) => string> = {
  time: () =>
    'Ни один инструмент не фильтрует по дате: они знают серьёзность, текст, отчёт, CWE и вердикт находки, но не когда её импортировали или нашли.',
  negation: (p) => `Я не понял, что исключает ${ruQuote(p.text)}.`,
  combination: (p) =>
    `Я не могу превратить ${ruQuote(p.text)} в один точный подсчёт вместе с остальным вопросом (текстовый поиск не сравнивает числа и не объединяет темы, а исключаю я только одну часть за раз).`,
  order: (p) =>
    `Я ранжирую только от наибольшего: для ${ruQuote(p.text)} понадобились бы все отчёты или CWE без подходящих находок, а сгруппированный подсчёт их не содержит.`,
  unknown: (p) => `Я не знаю ${ruQuote(p.text)} как серьёзность, отчёт, CWE, вердикт или тему.`,
};

export function ruUnsupportedAnswer(parts: Unapplied[], understood: PlannedQuestion): string {
  const lines = [
    `Точного числа дать не могу: не удалось применить ${parts.map((p) => ruQuote(p.text)).join(', ')}.`,
  ];
  for (const p of parts) lines.push(REASON_TEXT[p.reason](p));
  lines.push('Подсчёт без этого ответил бы на другой вопрос, поэтому я его не даю.');
  lines.push(
    '',
    `Я могу ответить, ${ruUnderstoodPhrase(understood)}: спросите ещё раз без ${parts.length === 1 ? 'этой части' : 'этих частей'}.`,
  );
  const topicLike = parts.find((p) => p.topicLike);
  if (topicLike)
    lines.push(
      `Если ${ruQuote(topicLike.text)} — это тема, спросите «сколько находок упоминают ${md(cut(topicLike.text, QUOTE_MAX_CHARS))}?».`,
    );
  return lines.join('\n');
}

export function ruReportHintAnswer(hint: { text: string; loose: boolean }, matches: string[]): string {
  if (!matches.length) {
    const lead = hint.loose
      ? `Точного числа дать не могу: не удалось применить ${ruQuote(hint.text)}.`
      : 'Не могу назвать число для этого отчёта:';
    return (
      `${lead} Ни одно имя файла отчёта не соответствует ${ruQuote(hint.text)}, и я не знаю это как серьёзность, CWE, вердикт или тему.\n\n` +
      'Спросите «список отчётов», чтобы увидеть все имена файлов, и повторите вопрос с одним из них (достаточно части имени, если она уникальна).' +
      (hint.loose
        ? ` Если ${ruQuote(hint.text)} — это тема, спросите «сколько находок упоминают ${md(cut(hint.text, QUOTE_MAX_CHARS))}?».`
        : '')
    );
  }
  const lines = [
    `Пока не могу назвать число: ${ruQuote(hint.text)} соответствует нескольким отчётам, и подсчёт по всем сразу не ответил бы про тот, который вы имеете в виду:`,
  ];
  for (const m of matches.slice(0, 20)) lines.push(`- ${md(m)}`);
  if (matches.length > 20) lines.push('- …');
  lines.push('', 'Спросите ещё раз с именем файла (или его частью, которая есть только у одного отчёта).');
  return lines.join('\n');
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : 'время сканирования не записано');

/** The answer to a scan comparison, from the `compare_reports` result only. */
export function ruComparisonAnswer(plan: ComparisonPlan, c: ScanComparison): string {
  const report = `**${md(c.report.filename)}**`;
  const baseline = `**${md(c.baseline.filename)}**`;
  const list = (rows: ScanComparison['newFindings']) =>
    rows.map((f) => `- ${md(f.title)} (${SEVERITY_RU[f.severity]}, находка #${f.id})`).join('\n');
  const lines: string[] = [];
  if (plan.asked === 'new' || plan.asked === 'all') {
    lines.push(
      `Новых находок в ${report} по сравнению с базовым ${baseline}: ${ruNumber(c.new)}${c.new ? ':' : '.'}`,
    );
    if (c.new) lines.push(list(c.newFindings));
  }
  if (plan.asked === 'fixed' || plan.asked === 'all') {
    lines.push(
      `Исправлено (отсутствует в ${report}) находок из ${baseline}: ${ruNumber(c.fixed)}${c.fixed ? ':' : '.'}`,
    );
    if (c.fixed) lines.push(list(c.fixedFindings));
  }
  if (plan.asked === 'unchanged')
    lines.push(`Без изменений между ${baseline} и ${report}: ${ruCount(c.unchanged, FINDINGS)}.`);
  lines.push('');
  lines.push(
    `Итого: новых ${ruNumber(c.new)}, исправлено ${ruNumber(c.fixed)}, без изменений ${ruNumber(c.unchanged)}. Базовый ${baseline} (${day(c.baseline.scannedAt)}, ${ruCount(c.baseline.findingCount, FINDINGS)}); ` +
      `отчёт ${report} (${day(c.report.scannedAt)}, ${ruCount(c.report.findingCount, FINDINGS)}); оба — сканы ${md(c.target.join(', '))}.`,
  );
  if (c.baselineBy === 'scan_time')
    lines.push(
      'В вопросе не сказано, какой скан старше, поэтому базовым взят тот, у которого время сканирования раньше.',
    );
  lines.push(
    'Находки сопоставляются по идентичности (проверка и место), а не по заголовку или серьёзности; «исправлено» означает лишь отсутствие в более новом скане.',
  );
  return lines.join('\n');
}

/** Answer to "какой процент …": both exact totals and the share they give (one decimal). */
export function ruShareAnswer(part: SearchFindingsResult, whole: SearchFindingsResult): string {
  const wholeScope = ruScopePhrase(whole.filter);
  const partScope = ruScopePhrase(part.filter);
  const pct = whole.total ? `${ruDecimal((100 * part.total) / whole.total)} %` : 'доли нет: целое пусто';
  const of = wholeScope
    ? `**${ruNumber(whole.total)}** ${ruForm(whole.total, FINDINGS)} с условием (${wholeScope})`
    : `всех **${ruNumber(whole.total)}** ${ruForm(whole.total, FINDINGS)}`;
  return `Из ${of} условию (${partScope}) соответствует **${ruNumber(part.total)}** (${pct}). Точные итоги из search_findings, по вызову на каждый.`;
}
