import 'reflect-metadata';
import { check, countBy, search, SEVERITY_GROUPS } from '../testing/provenance-evidence';

const rows = (n: number) => Array.from({ length: n }, () => ({}));
const CWE_GROUPS: [string, number][] = [
  ['79', 120],
  ['89', 84],
  ['22', 61],
  ['78', 40],
  ['352', 33],
  ['434', 20],
  ['502', 18],
  ['611', 12],
  ['918', 9],
  ['none', 300],
];

describe('page facts: a page size, a row id or an argument is not a total', () => {
  const ask = 'How many SQL injection findings are there?';

  it('flags a page size, a returned count, a limit or a row id claimed as the count of findings', () => {
    expect(
      check('There are 50 SQL injection findings.', [search(77, rows(50), { limit: 50 })], ask).unsupported,
    ).toEqual(['50']);
    expect(
      check('The exact total is 5 findings.', [search(77, rows(5), { limit: 5 })], ask).unsupported,
    ).toEqual(['5']);
    expect(
      check('There are 84 SQL injection findings.', [search(77, rows(5), { limit: 84 })], ask).unsupported,
    ).toEqual(['84']);
    expect(check('There are 1004 SQL injection findings.', [search(77, rows(5))], ask).unsupported).toEqual([
      '1004',
    ]);
  });

  it('accepts them beside the total the answer also states', () => {
    expect(check('77 findings, 5 shown, 72 not shown.', [search(77, rows(5))], ask).unsupported).toEqual([]);
    expect(
      check('Showing 84 at most of the 77.', [search(77, rows(5), { limit: 84 })], ask).unsupported,
    ).toEqual([]);
  });

  it('accepts a row id written as an id, and only a real one', () => {
    const evidence = [search(77, rows(5))];
    for (const written of ['#1004', 'id 1004', 'ID: 1004', 'finding 1004']) {
      expect({ written, u: check(`See ${written}.`, evidence).unsupported }).toEqual({ written, u: [] });
    }
    expect(check('See finding 1005.', evidence).unsupported).toEqual(['1005']);
  });

  it('reads the filter a result echoes as arguments: a CWE it names, not a count', () => {
    const evidence = [countBy('severity', SEVERITY_GROUPS, { cwe: 89 })];
    expect(check('CWE-89: 4,439 findings.', evidence).unsupported).toEqual([]);
    expect(check('There are 89 findings.', evidence).unsupported).toEqual(['89']);
  });

  it('accepts a count of groups followed by what it counts, never as a count of findings', () => {
    const evidence = [countBy('severity', SEVERITY_GROUPS)];
    expect(check('There are five severity levels.', evidence).unsupported).toEqual([]);
    expect(check('All 5 severities occur.', evidence).unsupported).toEqual([]);
    expect(check('There are 5 findings.', evidence).unsupported).toEqual(['5']);
    expect(check('4,439 findings in 5 groups.', evidence).unsupported).toEqual([]);
  });
});

describe('arithmetic stays within one result', () => {
  const severities = [countBy('severity', SEVERITY_GROUPS)];
  const cwes = [countBy('cwe', CWE_GROUPS)];

  it('accepts the whole minus one or several parts, not a difference of two groups of a long list', () => {
    expect(check('Not critical: 4,367.', severities).unsupported).toEqual([]);
    expect(check('Neither low nor info: 2,678.', severities).unsupported).toEqual([]);
    expect(check('397 have a CWE.', cwes).unsupported).toEqual([]); // 697 - 300
    expect(check('CWE-79 has 36 more than CWE-89.', cwes).unsupported).toEqual(['36']); // 120 - 84
  });

  it('lets few small numbers pass beside a ten-group breakdown', () => {
    const passing: number[] = [];
    for (let x = 1; x < 100; x++)
      if (!check(`CWE-89 has ${x} findings.`, cwes).unsupported.length) passing.push(x);
    // The group counts under 100; the number of groups (10) is not a count of findings.
    expect(passing).toEqual([9, 12, 18, 20, 33, 40, 61, 84]);
  });

  it('subtracts one call’s total from another’s (findings not in one report)', () => {
    const evidence = [countBy('severity', SEVERITY_GROUPS), search(1086, [], { reportName: 'juice shop' })];
    expect(check('3,353 findings are not in the juice shop report.', evidence).unsupported).toEqual([]);
    expect(check('3,354 findings are not in the juice shop report.', evidence).unsupported).toEqual([
      '3,354',
    ]);
  });

  it('reads a share as a part of one result over its total, or one total over another', () => {
    expect(check('72 of 4,439 findings (1.6%) are critical.', severities).unsupported).toEqual([]);
    expect(check('Not critical: 98.4%.', severities).unsupported).toEqual([]);
    expect(check('High findings are 30% of the total.', severities).unsupported).toEqual(['30%']);
    const two = [search(77), countBy('severity', SEVERITY_GROUPS)];
    expect(check('77 findings, roughly 1.7% of the 4,439.', two).unsupported).toEqual([]);
  });

  it('reads a share over a count stated in the same sentence as its whole', () => {
    expect(check('CWE-79 makes up 30.2% of findings with a CWE (120 of 397).', cwes).unsupported).toEqual([]);
    expect(check('CWE-79 makes up 30.2% of findings with a CWE. 120 of 397.', cwes).unsupported).toEqual([
      '30.2%',
    ]);
  });
});
