/**
 * The planner's answers in Russian: the words `answer-writer.ts` fills in, worded for a
 * Russian-speaking operator (numbers grouped the Russian way, nouns agreeing with their number).
 */
import {
  SEVERITIES,
  type FindingFilter,
  type ScanComparison,
  type SearchFindingsResult,
} from '@corpus-chat/contracts';
import { reportTally } from './answer-rows';
import { QUOTE_MAX_CHARS, cut, md } from './answer-text';
import { classNote, scopePhrase, type AnswerLanguage, type ScopedCount } from './answer-writer';
import type { PlannedQuestion, Unapplied } from './question-plan';
import type { ComparisonPlan } from './scan-comparison';
import {
  FINDINGS,
  REPORTS,
  REPORT_STATUS_RU,
  SEVERITY_RU,
  STATUS_RU,
  VERDICT_RU,
  ruCount,
  ruDecimal,
  ruForm,
  ruNumber,
  ruSeverityList,
  type RussianForms,
} from './russian-words';

/** The operator's words, cut and escaped, in Russian quotes. */
const ruQuote = (s: string): string => `«${md(cut(s, QUOTE_MAX_CHARS))}»`;

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

const CAPABILITIES =
  'Я отвечаю на вопросы об импортированных отчётах и их находках точными числами из запросов только на чтение, например:\n' +
  '- сколько всего отчётов или находок, в том числе определённой серьёзности (или нескольких, например «высокой или критической», «кроме информационных»), в отчёте, с вердиктом, статусом триажа или идентификатором CWE;\n' +
  '- сколько находок связано с темой, например SQL-инъекциями, XSS или jQuery (или не связано);\n' +
  '- в каком отчёте больше всего находок или критических, топ отчётов по серьёзности;\n' +
  '- распределение находок по серьёзности, CWE, вердикту или статусу триажа;\n' +
  '- список отчётов и подробности находки по её номеру;\n' +
  '- уточнения вроде «а сколько из них высоких?» или «покажи первую».\n\n' +
  'Это встроенный планировщик. Для других вопросов администратор может настроить сервер модели в настройках.';

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
function understoodPhrase(plan: PlannedQuestion): string {
  const scoped = 'filter' in plan ? scopePhrase(RUSSIAN, plan.filter, plan.scope) : '';
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

function unsupportedAnswer(parts: Unapplied[], understood: PlannedQuestion): string {
  const lines = [
    `Точного числа дать не могу: не удалось применить ${parts.map((p) => ruQuote(p.text)).join(', ')}.`,
  ];
  for (const p of parts) lines.push(REASON_TEXT[p.reason](p));
  lines.push('Подсчёт без этого ответил бы на другой вопрос, поэтому я его не даю.');
  lines.push(
    '',
    `Я могу ответить, ${understoodPhrase(understood)}: спросите ещё раз без ${parts.length === 1 ? 'этой части' : 'этих частей'}.`,
  );
  const topicLike = parts.find((p) => p.topicLike);
  if (topicLike)
    lines.push(
      `Если ${ruQuote(topicLike.text)} — это тема, спросите «сколько находок упоминают ${md(cut(topicLike.text, QUOTE_MAX_CHARS))}?».`,
    );
  return lines.join('\n');
}

function reportHintAnswer(hint: { text: string; loose: boolean }, matches: string[]): string {
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
function comparisonAnswer(plan: ComparisonPlan, c: ScanComparison): string {
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
function shareAnswer(part: SearchFindingsResult, whole: SearchFindingsResult): string {
  const wholeScope = scopePhrase(RUSSIAN, whole.filter);
  const partScope = scopePhrase(RUSSIAN, part.filter);
  const pct = whole.total ? `${ruDecimal((100 * part.total) / whole.total)} %` : 'доли нет: целое пусто';
  const of = wholeScope
    ? `**${ruNumber(whole.total)}** ${ruForm(whole.total, FINDINGS)} с условием (${wholeScope})`
    : `всех **${ruNumber(whole.total)}** ${ruForm(whole.total, FINDINGS)}`;
  return `Из ${of} условию (${partScope}) соответствует **${ruNumber(part.total)}** (${pct}). Точные итоги из search_findings, по вызову на каждый.`;
}

export const RUSSIAN: AnswerLanguage = {
  num: ruNumber,
  findings: (n) => ruCount(n, FINDINGS),
  quote: ruQuote,
  severity: (s) => SEVERITY_RU[s],
  severityList: (set) => ruSeverityList(set, SEVERITIES),
  verdict: (v) => VERDICT_RU[v],
  reportStatus: (s) => REPORT_STATUS_RU[s] ?? s,
  scope: {
    severity: (label) => `серьёзность ${label}`,
    text: (quoted) => `текст ${quoted}`,
    report: (name) => `отчёт ${name}`,
    format: (format) => `формат ${format}`,
    scanner: (quoted) => `сканер ${quoted}`,
    archived: 'включая архивные отчёты',
    verdict: (v) => `вердикт «${VERDICT_RU[v]}»`,
    status: (s) => `статус триажа «${STATUS_RU[s]}»`,
    exclude: (parts) => `кроме: ${parts.join(' и ')}`,
    has: (key, present) =>
      `${present ? 'с' : 'без'} ${key === 'cwe' ? 'идентификатор' : 'вердикт'}${present ? 'ом' : 'а'}${key === 'cwe' ? ' CWE' : ''}`,
  },
  classNote: (classes) =>
    ` (текст также соответствует ${classes.map(([name, ids]) => `классу ${name}: ${ids}`).join('; ')})`,
  followUp: {
    instead: (phrase, before) => `${phrase} вместо: ${before}`,
    dropped: (phrase) => `убрано: ${phrase}`,
    added: (phrases) => `добавлено: ${phrases}`,
    kept: (phrases) => `сохранено: ${phrases}`,
    note: (segments) =>
      segments.length
        ? `Уточнение предыдущего вопроса — ${segments.join('; ')}.`
        : 'Уточнение предыдущего вопроса, с тем же фильтром.',
  },
  countHead: (total, scope) =>
    !scope
      ? `Всего **${ruNumber(total)}** ${ruForm(total, FINDINGS)}. Точный итог из search_findings, без фильтра.`
      : `**${ruNumber(total)}** ${ruForm(total, { one: 'находка соответствует', few: 'находки соответствуют', many: 'находок соответствуют' })} условию: ${scope}. Точный итог из search_findings.`,
  countShown: (total, shown) => (total > shown ? `Первые ${shown}:` : shown === 1 ? 'Вот она:' : 'Вот они:'),
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
  grouped: (groupBy, how) =>
    `Точные числа из count_findings_by, с группировкой по ${GROUP_RU[groupBy].by}${how ? ` (${how})` : ''}.`,
  howSeverities: 'по вызову на каждую серьёзность, сложено',
  howExclude: 'минус те же числа для исключённых находок',
  topEmpty: (_groupBy, scope, total) =>
    `Нет ни одной находки${scope ? ` (${scope})` : ''} (всего ${ruNumber(total)}), поэтому ранжировать нечего.`,
  topOne: (groupBy, scope, first, count, next) =>
    `${GROUP_RU[groupBy].what} с наибольшим числом находок${scope ? ` (${scope})` : ''}: **${first}** — **${ruNumber(count)}**` +
    (next ? ` (следующий: ${next[0]} — ${ruNumber(next[1])}).` : '.'),
  topMany: (groupBy, scope, n, ties) =>
    n === 1
      ? `Поровну больше всего находок${scope ? ` (${scope})` : ''} — ${GROUP_RU[groupBy].whats}:`
      : `Топ-${n}: ${GROUP_RU[groupBy].whats} по числу находок${scope ? ` (${scope})` : ''}${ties ? ' (с равными значениями)' : ''}:`,
  topFooter: (groupBy, total, groups) =>
    `Всего ${ruCount(total, FINDINGS)}; в сравнении ${ruCount(groups, GROUP_RU[groupBy].forms)}.`,
  breakdownHead: (groupBy, scope, total) =>
    `Находки по ${GROUP_RU[groupBy].by}${scope ? ` (${scope})` : ''}, всего ${ruCount(total, FINDINGS)}:`,
  breakdownMore: (groupBy, hidden) => `и ещё ${ruCount(hidden, GROUP_RU[groupBy].forms)}`,
  cweNote: 'Находка с несколькими идентификаторами CWE учитывается под каждым из них.',
  reportCount(reports) {
    const { byStatus, findings } = reportTally(reports);
    const statuses = byStatus
      .map(([s, n]) => `${REPORT_STATUS_RU[s as keyof typeof REPORT_STATUS_RU] ?? s}: ${ruNumber(n)}`)
      .join(', ');
    return `Всего **${ruNumber(reports.length)}** ${ruForm(reports.length, REPORTS)}${statuses ? ` (${statuses})` : ''}, в них ${ruCount(findings, FINDINGS)}. Из list_all_reports; архивные отчёты не учитываются.`;
  },
  noReports:
    'Отчётов пока нет (list_all_reports не вернул ни одного). Импортируйте файл сканера на странице «Отчёты».',
  reportListHead: (n) =>
    `Всего **${ruNumber(n)}** ${ruForm(n, REPORTS)} (из list_all_reports; архивные не показаны):`,
  moreReports: (n) => `- … и ещё ${ruCount(n, REPORTS)}`,
  noFilter: 'без фильтра',
  reportsWithHead: (reports, scope, total) =>
    `Находки с условием (${scope}) есть в **${ruNumber(reports)}** ${ruForm(reports, { one: 'отчёте', few: 'отчётах', many: 'отчётах' })}, всего ${ruCount(total, { one: 'такая находка', few: 'такие находки', many: 'таких находок' })}.`,
  overview: {
    head: (reports, findings) =>
      `В корпусе **${ruNumber(reports)}** ${ruForm(reports, REPORTS)} и **${ruNumber(findings)}** ${ruForm(findings, FINDINGS)} (из get_corpus_overview).`,
    bySeverity: 'Находки по серьёзности: ',
    verdicts: 'Вердикты: ',
    largest: 'Крупнейшие отчёты:',
  },
  detail: {
    finding: 'Находка',
    severity: 'Серьёзность',
    report: 'Отчёт',
    byHand: 'нет (введена вручную)',
    none: 'нет',
    verdict: 'Последний вердикт',
    versions: 'Версий',
    affected: 'Затронуто',
    impact: 'Влияние',
  },
  share: shareAnswer,
  comparison: comparisonAnswer,
  outOfScope: (reason) =>
    reason === 'write'
      ? `Этого я сделать не могу: я только читаю корпус, и ни один мой инструмент не может удалять, менять или импортировать данные. Отчётами управляют на странице «Отчёты».\n\n${CAPABILITIES}`
      : `На это я не могу ответить по данным корпуса.\n\n${CAPABILITIES}`,
  tooLong: (length, max) =>
    `Это сообщение длиной ${ruCount(length, { one: 'символ', few: 'символа', many: 'символов' })}; я читаю вопросы длиной до ${ruNumber(max)} символов, поэтому не стал его читать. ` +
    'Задавайте по одному вопросу, например «сколько находок связано с SQL-инъекциями?».\n\n' +
    CAPABILITIES,
  noPrevious:
    'В этой ветке нет ничего раньше, к чему это могло бы относиться (ни предыдущего подсчёта, ни показанной находки). Задайте вопрос целиком, например «сколько находок связано с SQL-инъекциями?» или «список отчётов».',
  unsupported: unsupportedAnswer,
  reportHint: reportHintAnswer,
  failed: (error) => `Не удалось получить это число: ${md(error)}`,
  comparisonFailed: (error) => `Сравнить не удалось: ${md(error)}`,
  noSuchFinding: (id) => `Находки с номером ${id} нет (finding_detail ничего не нашёл).`,
  fewerFindings: (shown) =>
    `В предыдущем ответе ${shown === 1 ? 'была показана одна находка' : 'было показано меньше находок'}; спросите находку по номеру, например «покажи находку» и номер.`,
  fewerGroups: (listed) =>
    `В предыдущем ответе ${listed.groups.length === 1 ? 'была одна позиция' : `было ${ruCount(listed.groups.length, { one: 'позиция', few: 'позиции', many: 'позиций' })}`}; спросите об одной по имени.`,
  titleNotFilter: (label) =>
    `Не могу точно посчитать находки «${md(label)}»: заголовок находки — не фильтр инструментов. Спросите «сколько находок упоминают …» с его словами.`,
  fromRanking: (label) => `Из предыдущего рейтинга, ${md(label)}:`,
  unknownReport: (name) => `Примечание: отчёт ${md(name)} не найден, поэтому ему ничего не соответствует.`,
  listOneSeverity:
    'Чтобы перечислить сами находки, спрашивайте по одной серьёзности (поиск принимает одну серьёзность).',
  searchedText: (term) =>
    `«${md(term)}» — не серьёзность, формат, статус или отчёт из словаря, поэтому я искал '${md(term)}' в тексте находок.`,
};
