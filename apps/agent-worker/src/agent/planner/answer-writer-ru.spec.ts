import 'reflect-metadata';
import type { CountFindingsByResult, ScanComparison, SearchFindingsResult } from '@corpus-chat/contracts';
import { answerWriter } from './answer-writer';
import type { PlannedScope } from './question-plan';

/** The note a follow-up's answer ends its first line with (`merged` is the follow-up's scope). */
const followUpNote = (previous: PlannedScope, asked: PlannedScope, merged: PlannedScope) =>
  answerWriter('ru')
    .withFollowUpNote({ ...merged, followUp: true, previous, asked }, '')
    .trim();

const ru = answerWriter('ru');

const cwes: CountFindingsByResult = {
  groupBy: 'cwe',
  total: 10,
  filter: {},
  groups: [
    { key: 'none', label: 'none', count: 5 },
    { key: '561', label: 'CWE-561', count: 3 },
    { key: '79', label: 'CWE-79', count: 2 },
  ],
};
const search = (total: number, rows = 0): SearchFindingsResult =>
  ({
    total,
    returned: rows,
    filter: { severity: 'critical' },
    rows: Array.from({ length: rows }, (_, i) => ({
      id: i + 1,
      title: `Finding ${i + 1}`,
      severity: 'critical',
      reportFilename: 'a.sarif',
    })),
  }) as unknown as SearchFindingsResult;

describe('answer writer in Russian', () => {
  it('agrees the noun with the count: 1 находка, 2 находки, 5 находок', () => {
    expect(ru.count(search(1, 1))).toMatch(
      /^\*\*1\*\* находка соответствует условию: серьёзность критическая\./,
    );
    expect(ru.count(search(2, 2))).toMatch(/^\*\*2\*\* находки соответствуют условию/);
    expect(ru.count(search(5, 1))).toMatch(/^\*\*5\*\* находок соответствуют условию/);
    expect(ru.count(search(21, 0))).toMatch(/^\*\*21\*\* находка соответствует/);
    expect(ru.count(search(3538, 0))).toMatch(/^\*\*3\u00a0538\*\* находок/);
    expect(ru.count(search(2, 2))).toContain('- #1 Finding 1 (критическая, a.sarif)');
  });

  it('lists CWE groups as in English and says how a finding with several CWE ids counts', () => {
    const text = ru.breakdown(cwes);
    expect(text).toContain('Находки по CWE, всего 10 находок:');
    expect(text).toContain('- CWE-561: 3');
    expect(text).toContain('- CWE-79: 2');
    expect(text).toContain('- без CWE: 5');
    expect(text).toContain('учитывается под каждым из них');
    expect(ru.top(cwes, 1)).toContain('CWE с наибольшим числом находок: **CWE-561** — **3**');
  });

  it('shows how a computed count was made, with Russian severity names', () => {
    const text = ru.scopedCount({
      total: 403,
      filter: {},
      scope: { severities: ['critical', 'high'] },
      bySeverity: [
        { severity: 'critical', count: 70, excluded: 0 },
        { severity: 'high', count: 333, excluded: 0 },
      ],
    });
    expect(text.split('\n')[0]).toBe(
      '**403** находки (серьёзность критическая или высокая): критическая 70 + высокая 333.',
    );
  });

  it('names the follow-up parts it replaced, added and kept', () => {
    expect(
      followUpNote(
        { filter: { text: 'SQL injection' } },
        { filter: { severity: 'high' } },
        { filter: { text: 'SQL injection', severity: 'high' } },
      ),
    ).toBe(
      'Уточнение предыдущего вопроса — добавлено: серьёзность высокая; сохранено: текст «SQL injection».',
    );
  });

  it('a refusal names what it could not apply and states no number', () => {
    const text = ru.unsupported([{ text: 'на прошлой неделе', reason: 'time' }], {
      kind: 'count_findings',
      list: false,
      filter: { severity: 'critical' },
      followUp: false,
    });
    expect(text).toContain('не удалось применить «на прошлой неделе»');
    expect(text).toContain('число находок с условием (серьёзность критическая)');
    expect(text).not.toMatch(/\d/);
    expect(ru.say('outOfScope.write')).not.toMatch(/\d/);
    expect(ru.say('noPrevious')).not.toMatch(/\d/);
  });

  it('writes a share with a decimal comma and a comparison with its counts', () => {
    const whole = { ...search(3538), filter: {} } as SearchFindingsResult;
    expect(ru.share(search(70), whole)).toBe(
      'Из всех **3\u00a0538** находок условию (серьёзность критическая) соответствует **70** (2,0 %). Точные итоги из search_findings, по вызову на каждый.',
    );
    const c = {
      new: 2,
      fixed: 1,
      unchanged: 5,
      baselineBy: 'question',
      target: ['app'],
      baseline: { filename: 'a.sarif', scannedAt: '2025-01-01T00:00:00Z', findingCount: 6 },
      report: { filename: 'b.sarif', scannedAt: '2025-02-01T00:00:00Z', findingCount: 7 },
      newFindings: [
        { id: 9, title: 'New one', severity: 'high' },
        { id: 10, title: 'Another', severity: 'low' },
      ],
      fixedFindings: [{ id: 3, title: 'Old one', severity: 'medium' }],
    } as unknown as ScanComparison;
    const text = ru.comparison(
      { kind: 'compare', asked: 'new', baseline: 'a.sarif', report: 'b.sarif', ordered: true },
      c,
    );
    expect(text).toContain('Новых находок в **b.sarif** по сравнению с базовым **a.sarif**: 2:');
    expect(text).toContain('- New one (высокая, находка #9)');
    expect(text).toContain('Итого: новых 2, исправлено 1, без изменений 5.');
  });

  it('speaks of an attached file in Russian, whatever its import status', () => {
    const file = { file: 'a.xml', reportId: 42, error: null, duplicate: false };
    expect(ru.say('attachment.heading', { ...file, report: '42' })).toBe(
      'О прикреплённом файле **a.xml** (отчёт 42):',
    );
    expect(ru.say('attachment.notReady', { ...file, reportId: null, status: 'parsing' })).toContain(
      'ещё импортируется (идёт разбор)',
    );
    expect(ru.say('attachment.notReady', { ...file, reportId: null, status: 'failed' })).toContain(
      'не импортирован: импорт не удался.',
    );
  });
});
