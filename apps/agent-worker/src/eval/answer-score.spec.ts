import { numbersIn, scoreAnswer } from './answer-score';

describe('scoreAnswer', () => {
  it('reads numbers with thousands separators and ignores a sentence comma', () => {
    expect(numbersIn('There are 1,768 findings, 12 reports and 3.5 on average.')).toEqual([1768, 12, 3.5]);
  });

  it('needs every expected number and name; names compare case-insensitively', () => {
    expect(
      scoreAnswer(
        { numbers: [102], names: ['scb__juice-shop-v12.10.2.json'] },
        'SCB__JUICE-SHOP-V12.10.2.JSON has 102.',
      ),
    ).toMatchObject({ exact: true });
    expect(scoreAnswer({ numbers: [70, 333] }, 'critical: 70, high: 33')).toMatchObject({
      exact: false,
      missingNumbers: [333],
    });
    expect(scoreAnswer({ names: ['a.sarif', 'b.sarif'] }, 'a.sarif leads')).toMatchObject({
      exact: false,
      missingNames: ['b.sarif'],
    });
  });

  it('lets an out-of-scope answer number a list but not state a count', () => {
    const list = 'I can answer:\n1. counts of findings\n2) breakdowns by severity';
    expect(scoreAnswer({ noNumbers: true }, list)).toEqual({
      exact: true,
      missingNumbers: [],
      missingNames: [],
      statedNumbers: [],
    });
    expect(scoreAnswer({ noNumbers: true }, 'I cannot, but there are 41 reports.')).toMatchObject({
      exact: false,
      statedNumbers: [41],
    });
  });
});
