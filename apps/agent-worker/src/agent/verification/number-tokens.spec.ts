import 'reflect-metadata';
import { check, countBy, search } from '../testing/provenance-evidence';

describe('verifyNumbers: how numbers are written', () => {
  const evidence = [search(1768)];

  it.each(['1,768', '1 768', '1\u2009768', '1\u00a0768', '1\u202f768', "1'768", '1768'])(
    'reads %j as 1768',
    (n) => {
      expect(check(`There are ${n} findings.`, evidence)).toEqual({ checked: 1, unsupported: [] });
    },
  );

  it('reads a decimal comma only where it cannot separate thousands', () => {
    const part = [
      countBy('severity', [
        ['critical', 16],
        ['info', 984],
      ]),
    ];
    expect(check('1,6% are critical.', part)).toEqual({ checked: 1, unsupported: [] });
    expect(check('1,600 are critical.', part).unsupported).toEqual(['1,600']);
  });

  it('reads number words in English and Russian, and never "one"', () => {
    const e = [
      countBy('severity', [
        ['critical', 21],
        ['high', 100],
        ['medium', 2],
        ['low', 1000],
        ['info', 20],
      ]),
      countBy('verdict', [['fixed', 0]]),
    ];
    const ok = [
      'twenty-one',
      'twenty one',
      'a hundred',
      'hundred',
      'one hundred',
      'two',
      'a thousand',
      'zero',
      'двадцать',
      'двадцать один',
      'две',
      'два',
      'ноль',
    ];
    for (const w of ok)
      expect({ w, r: check(`Found ${w} findings.`, e) }).toEqual({ w, r: { checked: 1, unsupported: [] } });
    expect(check('One finding is critical; один из них.', e)).toEqual({ checked: 0, unsupported: [] });
    expect(check('Found twelve findings.', e).unsupported).toEqual(['twelve']);
    expect(check('Found 1 finding.', [search(7)]).unsupported).toEqual(['1']);
  });

  it('ignores list markers, ordinals and digits inside words, and checks numbers inside identifiers', () => {
    const e = [
      countBy('cwe', [
        ['79', 40],
        ['89', 8],
      ]),
    ];
    expect(check('1. **CWE-79**: 40\n2. CWE-89: 8\n3) CWE-89\n#4 CWE-79', e)).toEqual({
      checked: 6,
      unsupported: [],
    });
    expect(check('## 1. CWE-79\n> 2. CWE-89\n**3.** CWE-89\n   4) CWE-79', e)).toEqual({
      checked: 4,
      unsupported: [],
    });
    expect(check('**#1: CWE-79** with 40\n**#2: CWE-89** with 8', e)).toEqual({
      checked: 4,
      unsupported: [],
    });
    expect(check('**12** findings\n12 findings', e)).toEqual({ checked: 2, unsupported: ['12'] });
    expect(check('The 1st and 22nd reports, 3-й отчёт.', e)).toEqual({ checked: 0, unsupported: [] });
    expect(check('log4j, base64, SHA256, x86_64, h2 and http2.', e)).toEqual({ checked: 0, unsupported: [] });
    expect(check('CWE-90 appears in 40 findings.', e)).toEqual({ checked: 2, unsupported: ['CWE-90'] });
  });

  it('lists each unsupported number once, as written, in order', () => {
    expect(check('84 findings; 84 again; then 1,204 and twelve.', [search(77)])).toEqual({
      checked: 4,
      unsupported: ['84', '1,204', 'twelve'],
    });
  });

  it('reads Russian tens, hundreds and thousands, a compound as one number', () => {
    const e = [
      countBy('severity', [
        ['critical', 30],
        ['high', 72],
        ['medium', 40],
        ['low', 2300],
        ['info', 1000],
      ]),
    ];
    for (const w of ['тридцать', 'сорок', 'семьдесят две', 'семьдесят два', 'две тысячи триста', 'тысяча'])
      expect({ w, r: check(`Находок: ${w}.`, e) }).toEqual({ w, r: { checked: 1, unsupported: [] } });
    expect(check('Находок: семьдесят три.', e).unsupported).toEqual(['семьдесят три']);
    expect(check('Находок: пятьсот сорок.', e).unsupported).toEqual(['пятьсот сорок']);
    expect(check('There are forty critical findings.', e).unsupported).toEqual([]);
  });

  it('reads a dot grouping thousands where the decimal reading is unsupported', () => {
    expect(check('Insgesamt 4.439 Befunde.', [search(4439)])).toEqual({ checked: 1, unsupported: [] });
    expect(check('Hay 1.234.567 hallazgos.', [search(1234567)])).toEqual({ checked: 1, unsupported: [] });
    expect(check('Insgesamt 4.438 Befunde.', [search(4439)]).unsupported).toEqual(['4.438']);
    // A decimal that is a source number keeps its decimal reading.
    expect(check('CVSS 9.8.', [search(9800)]).unsupported).toEqual(['9.8']);
  });
});
