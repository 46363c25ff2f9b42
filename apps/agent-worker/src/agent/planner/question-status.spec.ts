import 'reflect-metadata';
import { parseQuestion } from './question-parser';

/** Triage status and retest verdict: which words mean which (the rule in `vocabulary.ts`). */
describe('parseQuestion: triage status', () => {
  it.each([
    [
      'how many findings are false positives?',
      { kind: 'count_findings', list: false, filter: { status: 'false_positive' }, followUp: false },
    ],
    [
      'how many confirmed criticals?',
      {
        kind: 'count_findings',
        list: false,
        filter: { status: 'confirmed', severity: 'critical' },
        followUp: false,
      },
    ],
    [
      'how many findings were marked risk accepted in the juice shop report?',
      {
        kind: 'count_findings',
        list: false,
        filter: { status: 'risk_accepted' },
        followUp: false,
        reportHint: { text: 'juice shop', negated: false, loose: false },
      },
    ],
    ['breakdown by triage status', { kind: 'breakdown', groupBy: 'status', filter: {}, followUp: false }],
    ['status breakdown', { kind: 'breakdown', groupBy: 'status', filter: {}, followUp: false }],
    [
      'how many open findings',
      { kind: 'count_findings', list: false, filter: { status: 'open' }, followUp: false },
    ],
    [
      'how many findings have triage status fixed?',
      { kind: 'count_findings', list: false, filter: { status: 'fixed' }, followUp: false },
    ],
    [
      'how many findings are not false positives?',
      {
        kind: 'count_findings',
        list: false,
        filter: {},
        scope: { exclude: { status: 'false_positive' } },
        followUp: false,
      },
    ],
    [
      'how many confirmed findings by severity',
      { kind: 'breakdown', groupBy: 'severity', filter: { status: 'confirmed' }, followUp: false },
    ],
    [
      'How many findings are open?',
      { kind: 'count_findings', list: false, filter: { status: 'open' }, followUp: false },
    ],
    // Verdict words stay the verdict.
    [
      'how many findings with verdict open',
      { kind: 'count_findings', list: false, filter: { verdict: 'still_open' }, followUp: false },
    ],
    [
      'How many findings are fixed?',
      { kind: 'count_findings', list: false, filter: { verdict: 'fixed' }, followUp: false },
    ],
    [
      'how many findings have the retest verdict fixed?',
      { kind: 'count_findings', list: false, filter: { verdict: 'fixed' }, followUp: false },
    ],
    [
      'How many findings are still open?',
      { kind: 'count_findings', list: false, filter: { verdict: 'still_open' }, followUp: false },
    ],
    [
      'breakdown of findings by verdict',
      { kind: 'breakdown', groupBy: 'verdict', filter: {}, followUp: false },
    ],
  ])('%s', (q, plan) => {
    expect(parseQuestion(q)).toEqual(plan);
  });

  it('a follow-up narrows the previous answer to a status', () => {
    expect(
      parseQuestion('and how many of those are false positives?', { lastFilter: { severity: 'high' } }),
    ).toEqual({
      kind: 'count_findings',
      list: false,
      filter: { severity: 'high', status: 'false_positive' },
      followUp: true,
      previous: { filter: { severity: 'high' } },
      asked: { filter: { status: 'false_positive' } },
    });
  });
});
