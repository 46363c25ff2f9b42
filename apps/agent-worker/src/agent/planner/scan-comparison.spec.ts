import 'reflect-metadata';
import { lex } from './question-lexer';
import { parseQuestion } from './question-parser';
import { Scan } from './question-scan';
import { findComparison } from './scan-comparison';

const A = 'scan-a.json';
const B = 'scan-b.json';
const plan = (q: string) => findComparison(new Scan(q, lex(q)));

describe('comparison questions', () => {
  it('reads the baseline from the operator’s words', () => {
    expect(plan(`What is new in ${B} compared with ${A}?`)).toEqual({
      kind: 'compare',
      asked: 'new',
      baseline: A,
      report: B,
      ordered: true,
    });
    expect(plan(`How many findings were fixed between ${A} and ${B}?`)).toEqual({
      kind: 'compare',
      asked: 'fixed',
      baseline: A,
      report: B,
      ordered: true,
    });
    expect(plan(`How many findings are unchanged between ${A} and ${B}?`)).toMatchObject({
      asked: 'unchanged',
      baseline: A,
      report: B,
      ordered: true,
    });
    expect(plan(`what was resolved from ${A} to ${B}`)).toMatchObject({
      asked: 'fixed',
      baseline: A,
      report: B,
    });
    expect(plan(`anything new in ${B} since ${A}?`)).toMatchObject({
      asked: 'new',
      baseline: A,
      report: B,
      ordered: true,
    });
  });
  it('"since X" names only the baseline', () => {
    expect(plan(`what's new since ${A}?`)).toEqual({
      kind: 'compare',
      asked: 'new',
      baseline: A,
      ordered: true,
    });
  });
  it('two scans without an order leave the baseline to the recorded scan times', () => {
    expect(plan(`Compare ${B} and ${A}`)).toEqual({
      kind: 'compare',
      asked: 'all',
      baseline: B,
      report: A,
      ordered: false,
    });
  });
  it('is not a comparison without a report name or without asking what changed', () => {
    expect(plan('what is new since last week?')).toBeUndefined();
    expect(plan(`how many findings in ${A}?`)).toBeUndefined();
    expect(plan(`how many findings are in ${A} and ${B}?`)).toBeUndefined();
    expect(parseQuestion(`how many high findings in ${A}?`).kind).toBe('count_findings');
  });
  it('parseQuestion hands comparisons to the recogniser', () => {
    expect(parseQuestion(`How many findings were fixed between ${A} and ${B}?`)).toMatchObject({
      kind: 'compare',
      asked: 'fixed',
    });
  });
});
