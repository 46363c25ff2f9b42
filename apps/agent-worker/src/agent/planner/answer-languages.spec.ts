import { answerLanguage } from './answer-languages';

const RUSSIAN = answerLanguage('ru');

describe('answer messages', () => {
  const ru = RUSSIAN.messages;
  const en = answerLanguage('en').messages;

  it.each([
    [1, '1 находка'],
    [2, '2 находки'],
    [4, '4 находки'],
    [5, '5 находок'],
    [11, '11 находок'],
    [12, '12 находок'],
    [14, '14 находок'],
    [21, '21 находка'],
    [22, '22 находки'],
    [25, '25 находок'],
    [101, '101 находка'],
    [111, '111 находок'],
    [0, '0 находок'],
    [3538, '3\u00a0538 находок'],
    // A fraction takes the form Russian uses after a decimal.
    [1.5, '1,5 находки'],
  ])('agrees a Russian noun with %s', (n, text) => {
    expect(ru.format('findings', { n })).toBe(text);
  });

  it('groups Russian thousands with a no-break space and writes a decimal comma', () => {
    expect(ru.format('reports.more', { n: 1001 })).toBe('- … и ещё 1\u00a0001 отчёт');
    expect(RUSSIAN.num(1_234_567)).toBe('1\u00a0234\u00a0567');
    expect(RUSSIAN.decimal(12.5)).toBe('12,5');
    expect(RUSSIAN.decimal(2)).toBe('2,0');
  });

  it('selects by value, with "none" for an empty one and "yes" for true', () => {
    expect(en.format('scope.has', { key: 'cwe', present: true })).toBe('with a CWE id');
    expect(en.format('scope.has', { key: 'verdict', present: false })).toBe('without a verdict');
    expect(ru.format('scope.has', { key: 'cwe', present: true })).toBe('с идентификатором CWE');
    expect(en.format('breakdown.head', { groupBy: 'status', scope: '', total: 1 })).toBe(
      'Findings by triage status, 1 finding in total:',
    );
  });

  it('nests a plural inside a select, and groups digits for {x, number}', () => {
    expect(en.format('top.footer', { groupBy: 'title', total: 5, groups: 3 })).toBe(
      '5 findings; the 3 commonest titles were compared.',
    );
    expect(en.format('tooLong', { length: 120_000, max: 2000, capabilities: '…' })).toMatch(
      /^That message is 120,000 characters long; I read questions of up to 2,000 characters/,
    );
  });

  it('names a missing message', () => {
    expect(() => en.format('no.such.message')).toThrow('no message "no.such.message"');
  });
});
