import 'reflect-metadata';
import { check, countBy, search, SEVERITY_GROUPS } from '../testing/provenance-evidence';
import { maskNonClaims } from './answer-claims';

const severities = [countBy('severity', SEVERITY_GROUPS)];
const cwes = [
  countBy('cwe', [
    ['79', 120],
    ['89', 84],
    ['22', 61],
    ['78', 40],
    ['352', 33],
    ['434', 20],
  ]),
];

describe('numbers that state nothing about the corpus are not checked', () => {
  it.each([
    ['inline code', 'Run `count_findings_by` with `limit: 10`.'],
    ['fenced code', 'Try:\n```json\n{"limit": 25, "offset": 50}\n```'],
    ['a step', 'Step 1: filter by severity. Шаг 2: group by CWE.'],
    ['a protocol version', 'Use TLS 1.2 or TLSv1.3; HTTP/2 and SSH 2 are fine.'],
    ['a duration', 'No new findings in the last 24 hours.'],
    ['a year after a preposition', 'In 2026 the scanners ran since 2023.'],
    ['a top-N list name', 'See the OWASP Top 10 and CWE Top 25.'],
    ['an OWASP category', 'A03:2021 is Injection.'],
  ])('%s', (_name, answer) => {
    expect(check(answer, severities)).toEqual({ checked: 0, unsupported: [] });
  });

  it('still checks a score before its scale, and a count of findings that looks like a year', () => {
    expect(check('CVSS 9.8/10.', severities)).toEqual({ checked: 1, unsupported: ['9.8'] });
    expect(check('Scored 9.8 out of 10.', severities)).toEqual({ checked: 1, unsupported: ['9.8'] });
    expect(check('There are 2026 findings.', severities).unsupported).toEqual(['2026']);
    expect(check('HTTP 500 errors.', severities).unsupported).toEqual(['500']);
    expect(check('In 2026 findings were imported.', severities).unsupported).toEqual(['2026']);
  });

  it("masks a table's rank column running 1..n, not a count column that happens to start at 1", () => {
    const ranked =
      '| # | Severity | Count |\n|---|---|---|\n| 1 | Critical | 72 |\n| 2 | High | 333 |\n| 3 | Medium | 2,273 |';
    expect(check(ranked, severities)).toEqual({ checked: 3, unsupported: [] });
    const notRank = '| Count | Severity |\n|---|---|\n| 1 | Critical |\n| 3 | High |';
    expect(check(notRank, severities).unsupported).toEqual(['1', '3']);
  });

  it('keeps positions: the masked text has the same length and line breaks', () => {
    const text = 'Use `limit: 5`\nIn 2026, 72 findings.';
    const masked = maskNonClaims(text);
    expect(masked).toHaveLength(text.length);
    expect(masked.indexOf('72')).toBe(text.indexOf('72'));
  });
});

describe('an answer counting its own list', () => {
  it('accepts N followed by N enumerated items, not fewer', () => {
    expect(
      check('The 5 most common CWEs are CWE-79, CWE-89, CWE-22, CWE-78 and CWE-352.', cwes).unsupported,
    ).toEqual([]);
    expect(check('These 4 CWEs:\n- CWE-79\n- CWE-89\n- CWE-22\n- CWE-78', cwes).unsupported).toEqual([]);
    expect(check('The 7 weaknesses are CWE-79 and CWE-89.', cwes).unsupported).toEqual(['7']);
    expect(check('There are 2 critical findings and 3 high ones.', cwes).unsupported).toEqual(['2', '3']);
  });

  it('accepts top/first/other N up to the length of a returned list', () => {
    expect(check('Here are the top five.', cwes).unsupported).toEqual([]);
    expect(check('More than the other four combined.', severities).unsupported).toEqual([]);
    expect(check('Here are the top seven.', cwes).unsupported).toEqual(['seven']);
  });
});

describe('approximations and ratios of supported counts', () => {
  it('accepts a round number within 10% after over/about/roughly, and nothing else', () => {
    expect(check('Over 4,000 findings.', severities).unsupported).toEqual([]);
    expect(check('Roughly 4,400 findings.', severities).unsupported).toEqual([]);
    expect(check('About 80 findings.', [search(77)]).unsupported).toEqual([]);
    expect(check('About 90 findings.', [search(77)]).unsupported).toEqual(['90']);
    expect(check('Under 4,500 findings; около 4 400.', severities).unsupported).toEqual([]);
    expect(check('Under 80 findings.', [search(77)]).unsupported).toEqual([]);
    expect(check('Under 70 findings.', [search(77)]).unsupported).toEqual(['70']);
    expect(check('Over 80 findings.', [search(77)]).unsupported).toEqual(['80']);
    expect(check('Roughly 4,437 findings.', severities).unsupported).toEqual(['4,437']);
    expect(check('There are 4,400 findings.', severities).unsupported).toEqual(['4,400']);
  });

  it('accepts "1 in N" and "N times" as the rounded ratio of two counts of one result', () => {
    expect(check('72 critical findings: 1 in 62.', severities).unsupported).toEqual([]);
    expect(check('1 in 70 is critical.', severities).unsupported).toEqual(['70']);
    expect(check('Medium is about 4 times larger than low; 3.9x as many.', severities).unsupported).toEqual(
      [],
    );
    expect(check('Medium is 9 times larger than low.', severities).unsupported).toEqual(['9']);
  });
});

describe('earlier behaviour kept', () => {
  it('a page of rows and its total, "… and N more", a share of page tallies beside the total', () => {
    const rows = [{ severity: 'low' as const }, { severity: 'low' as const }, {}, {}, {}];
    expect(check('3 of the 5 shown are high (60%), 77 in all.', [search(77, rows)]).unsupported).toEqual([]);
    expect(check('3 of the 5 shown are high (60%).', [search(77, rows)]).unsupported).toEqual([
      '3',
      '5',
      '60%',
    ]);
  });
});
