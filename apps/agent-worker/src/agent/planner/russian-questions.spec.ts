/**
 * Russian questions are read as their English counterparts: each pair below must give the same
 * plan (same filter, grouping, ranking, comparison or refusal kind), whatever the inflection.
 */
import 'reflect-metadata';
import { parseQuestion } from './question-parser';
import type { PreviousAnswer } from './question-plan';
import { readRussian } from './russian-vocabulary';

const normaliseRussian = (q: string) => readRussian(q)?.text ?? q;

const SAME_PLAN: [string, string][] = [
  ['Сколько у нас отчётов?', 'How many reports do we have?'],
  ['Сколько всего находок?', 'How many findings are there in total?'],
  ['Сколько критических находок?', 'How many critical findings are there?'],
  ['Сколько находок высокой серьёзности?', 'How many high severity findings are there?'],
  ['сколько находок средней серьезности', 'How many medium severity findings are there?'],
  ['Сколько находок с низкой серьёзностью?', 'How many low severity findings are there?'],
  ['Сколько информационных уязвимостей?', 'How many informational findings are there?'],
  ['Дай распределение всех находок по серьёзности.', 'Give me a breakdown of all findings by severity.'],
  ['распределение находок по отчётам', 'breakdown of findings by report'],
  ['распределение находок по CWE', 'breakdown of findings by CWE'],
  ['распределение по статусу', 'breakdown by status'],
  ['Сколько находок связано с SQL-инъекциями?', 'How many findings relate to SQL injection?'],
  ['сколько находок по SQL инъекциям', 'How many findings relate to SQL injection?'],
  [
    'Сколько находок относится к межсайтовому скриптингу?',
    'How many findings relate to cross-site scripting?',
  ],
  ['Сколько находок связано с обходом каталогов?', 'How many findings relate to path traversal?'],
  ['Сколько находок связано с внедрением команд?', 'How many findings relate to command injection?'],
  [
    'Сколько находок связано с жёстко заданными учётными данными?',
    'How many findings relate to hard-coded credentials?',
  ],
  ['Сколько находок упоминают куки?', 'How many findings mention cookies?'],
  [
    'Сколько находок высокой серьёзности связано с межсайтовым скриптингом?',
    'How many high severity findings relate to cross-site scripting?',
  ],
  [
    'Сколько находок в отчёте dd__flawfinder.sarif?',
    'How many findings are in the report dd__flawfinder.sarif?',
  ],
  [
    'Сколько критических находок в отчете juice shop?',
    'How many critical findings are in the juice shop report?',
  ],
  ['В каком отчёте больше всего критических находок?', 'Which report has the most critical findings?'],
  ['Топ-3 отчёта по числу находок', 'What are the top 3 reports by number of findings?'],
  ['топ-5 CWE', 'top 5 CWEs'],
  ['покажи находку 12', 'show finding 12'],
  ['Покажи находку №12', 'show finding #12'],
  ['сколько ложных срабатываний?', 'how many false positives?'],
  ['Сколько подтверждённых находок?', 'how many confirmed findings?'],
  ['Сколько находок с принятым риском?', 'how many risk accepted findings?'],
  ['Сколько находок, кроме информационных?', 'how many findings excluding info?'],
  ['Сколько находок не связано с SQL-инъекциями?', 'how many findings unrelated to SQL injection?'],
  ['что нового в b.sarif по сравнению с a.sarif?', 'what is new in b.sarif compared with a.sarif?'],
  ['что исправлено между a.sarif и b.sarif?', 'what was fixed between a.sarif and b.sarif?'],
  ['Удали все отчёты.', 'Please delete all the reports.'],
  ['Какая погода в Париже?', "What's the weather like in Paris?"],
];

describe('Russian questions read as their English counterparts', () => {
  it.each(SAME_PLAN)('%s', (ru, en) => {
    const plan = parseQuestion(ru);
    expect(plan.kind).not.toBe('unsupported');
    expect(plan).toEqual(parseQuestion(en));
  });

  it('reads a Russian follow-up against the previous answer', () => {
    const previous: PreviousAnswer = { lastFilter: { text: 'SQL injection' } };
    const ru = parseQuestion('А сколько из них высоких?', previous);
    expect(ru).toMatchObject({
      kind: 'count_findings',
      followUp: true,
      filter: { text: 'SQL injection', severity: 'high' },
    });
    expect(ru).toEqual(parseQuestion('And how many of those are high?', previous));
    expect(parseQuestion('а сколько из них критических?')).toEqual({ kind: 'no_previous' });
  });

  it('leaves Russian words it does not know as written, so the answer names them instead of counting', () => {
    // After "в" ("in") they are a report name to resolve, as unknown English words after "in" are.
    expect(parseQuestion('Сколько находок в облачной инфраструктуре?')).toMatchObject({
      kind: 'count_findings',
      filter: {},
      reportHint: { text: 'облачной инфраструктуре', loose: true },
    });
    expect(parseQuestion('Сколько находок облачной инфраструктуры?')).toMatchObject({
      kind: 'unsupported',
      parts: [{ text: 'облачной инфраструктуры', reason: 'unknown' }],
    });
    // A refusal quotes the operator's Russian words, not the vocabulary's English ones.
    expect(parseQuestion('Сколько находок добавлено на прошлой неделе?')).toMatchObject({
      kind: 'unsupported',
      parts: [
        { text: 'добавлено', reason: 'time' },
        { text: 'на прошлой неделе', reason: 'time' },
      ],
    });
  });

  it('keeps file names, CWE ids, quoted text and Latin words as written', () => {
    expect(normaliseRussian('Сколько находок «куки» с CWE-79 в dd__flawfinder.sarif про jQuery?')).toBe(
      'how many findings "куки" with CWE-79 in dd__flawfinder.sarif about jQuery?',
    );
    expect(normaliseRussian('How many findings mention jQuery?')).toBe('How many findings mention jQuery?');
  });
});
