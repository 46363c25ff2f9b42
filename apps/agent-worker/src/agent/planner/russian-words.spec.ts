import { FINDINGS, ruDecimal, ruForm, ruNumber, type RussianForms } from './russian-words';

const ruCount = (n: number, forms: RussianForms) => `${ruNumber(n)} ${ruForm(n, forms)}`;

describe('Russian numbers and plurals', () => {
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
  ])('%i agrees: %s', (n, text) => {
    expect(ruCount(n, FINDINGS)).toBe(text);
  });

  it('groups thousands with a no-break space and writes a decimal comma', () => {
    expect(ruCount(3538, FINDINGS)).toBe('3\u00a0538 находок');
    expect(ruCount(1001, { one: 'отчёт', few: 'отчёта', many: 'отчётов' })).toBe('1\u00a0001 отчёт');
    expect(ruNumber(1_234_567)).toBe('1\u00a0234\u00a0567');
    expect(ruDecimal(12.5)).toBe('12,5');
    expect(ruDecimal(2)).toBe('2,0');
  });

  it('gives a fraction the form Russian uses after a decimal', () => {
    expect(ruForm(1.5, FINDINGS)).toBe('находки');
  });
});
