import { MessageFormat } from './answer-format';
import MESSAGES from './answer-messages.json';
import { ruNumber } from './russian-words';

describe('answer messages', () => {
  const ru = new MessageFormat('ru', MESSAGES.ru, ruNumber);
  const en = new MessageFormat('en', MESSAGES.en, String);

  it.each([
    [1, '1 находка'],
    [4, '4 находки'],
    [11, '11 находок'],
    [21, '21 находка'],
    [3538, '3\u00a0538 находок'],
    [1.5, '1,5 находки'],
  ])('agrees a Russian noun with %s', (n, text) => {
    expect(ru.format('findings', { n })).toBe(text);
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
