import 'reflect-metadata';
import { parseQuestion } from './question-parser';
import type { PlannedQuestion, PreviousAnswer } from './question-plan';

/** Whole plans (`toEqual`) for the shapes of formats, scanners, shares, rankings and report-scoped follow-ups. */
const count = (filter: object, extra: object = {}): PlannedQuestion =>
  ({ kind: 'count_findings', list: false, filter, followUp: false, ...extra }) as PlannedQuestion;
const top = (groupBy: string, filter: object, n = 1): PlannedQuestion =>
  ({ kind: 'top', groupBy, n, filter, followUp: false }) as PlannedQuestion;

describe('parseQuestion: whole plans', () => {
  it.each<[string, PlannedQuestion]>([
    ['How many findings come from the Burp Suite reports?', count({ format: 'burp' })],
    ['How many findings do the CSV exports contain?', count({ format: 'csv' })],
    ['how many high findings in the trivy reports?', count({ severity: 'high', format: 'trivy' })],
    [
      'How many findings in the Burp reports relate to SQL injection?',
      count({ format: 'burp', text: 'SQL injection' }),
    ],
    [
      'Break down the Nessus findings by severity.',
      { kind: 'breakdown', groupBy: 'severity', filter: { format: 'nessus' }, followUp: false },
    ],
    [
      'how many findings in the zap report?',
      count({}, { reportHint: { text: 'zap', negated: false, loose: false } }),
    ],
    [
      'how many findings from semgrep?',
      count({}, { reportHint: { text: 'semgrep', negated: false, loose: true } }),
    ],
    [
      'how many medium findings in the coverity report?',
      count({ severity: 'medium' }, { reportHint: { text: 'coverity', negated: false, loose: false } }),
    ],
    [
      'crits in juice shop?',
      count({ severity: 'critical' }, { reportHint: { text: 'juice shop', negated: false, loose: true } }),
    ],
    ['crit sqli count', count({ severity: 'critical', text: 'sqli' })],
    ['how many log4j findings?', count({ text: 'log4j' })],
    ["which scan's got the most highs", top('report', { severity: 'high' })],
    ['report with the highest number of critical findings?', top('report', { severity: 'critical' })],
    ['What is the most common vulnerability in the Burp reports?', top('title', { format: 'burp' })],
    ['what is the most common vulnerability?', top('title', {})],
    ['Which CWE appears most often in the Nessus findings?', top('cwe', { format: 'nessus' })],
    ['Which report format has the most low severity findings?', top('format', { severity: 'low' })],
    [
      'What percentage of all findings are critical?',
      {
        kind: 'share',
        whole: {},
        attached: [],
        hintInWhole: false,
        filter: { severity: 'critical' },
        followUp: false,
      },
    ],
    [
      'What share of the Nessus findings are informational?',
      {
        kind: 'share',
        whole: { format: 'nessus' },
        attached: ['format'],
        hintInWhole: false,
        filter: { format: 'nessus', severity: 'info' },
        followUp: false,
      },
    ],
    ['How many reports are loaded, counting every format?', { kind: 'count_reports' }],
    ['And how many high severity findings does it have?', { kind: 'no_previous' }],
  ])('%s', (q, plan) => {
    expect(parseQuestion(q)).toEqual(plan);
  });

  it('a share with words before "of" that it cannot apply declines', () => {
    expect(parseQuestion('what rough percentage of findings are critical?')).toMatchObject({
      kind: 'unsupported',
      parts: [{ text: 'rough', reason: 'unknown' }],
    });
  });

  const afterTop: PreviousAnswer = {
    lastFilter: { severity: 'critical', reportName: 'dd__semgrep-oss-issue_10191.sarif.json' },
  };
  it.each<[string, object]>([
    [
      'And how many high severity findings does it have?',
      { severity: 'high', reportName: 'dd__semgrep-oss-issue_10191.sarif.json' },
    ],
    [
      'How many medium severity findings does that report have?',
      { severity: 'medium', reportName: 'dd__semgrep-oss-issue_10191.sarif.json' },
    ],
  ])('%s keeps the previous report', (q, filter) => {
    expect(parseQuestion(q, afterTop)).toEqual({
      kind: 'count_findings',
      list: false,
      filter,
      followUp: true,
      previous: { filter: afterTop.lastFilter },
      asked: { filter: { severity: filter['severity' as keyof typeof filter] } },
    });
  });

  it('"which of those reports has the most?" ranks only the previous format', () => {
    expect(
      parseQuestion('Which of those reports has the most?', { lastFilter: { format: 'nessus' } }),
    ).toEqual({
      kind: 'top',
      groupBy: 'report',
      n: 1,
      filter: { format: 'nessus' },
      followUp: true,
      previous: { filter: { format: 'nessus' } },
      asked: { filter: {} },
    });
  });
});
