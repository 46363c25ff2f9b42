import 'reflect-metadata';
import { parseQuestion, mergeFilters } from './question-parser';
import { lex } from './question-lexer';

describe('parseQuestion', () => {
  const prev = { lastFilter: { text: 'SQL injection' }, lastFindingIds: [41, 42, 43] };

  it.each([
    ['count the high XSS bugs', { kind: 'count_findings', filter: { severity: 'high', text: 'XSS' } }],
    ['How many findings have the word password?', { kind: 'count_findings', filter: { text: 'password' } }],
    ['count findings about hardcoded passwords with high severity', { kind: 'count_findings', filter: { severity: 'high', text: 'hardcoded passwords' } }],
    ['how many sqli findings in dd__flawfinder.sarif', { kind: 'count_findings', filter: { text: 'sqli', reportName: 'dd__flawfinder.sarif' } }],
    ['how many findings mention information disclosure', { kind: 'count_findings', filter: { text: 'information disclosure' } }],
    ['How many findings are still open?', { kind: 'count_findings', filter: { verdict: 'still_open' } }],
    ['how many findings in report 3', { kind: 'count_findings', filter: { reportId: 3 } }],
    ['List critical findings about XSS', { kind: 'count_findings', filter: { severity: 'critical', text: 'XSS' }, list: true }],
    ['top 5 CWEs', { kind: 'top', groupBy: 'cwe', n: 5 }],
    ['Give me the top three reports by critical findings', { kind: 'top', groupBy: 'report', n: 3, filter: { severity: 'critical' } }],
    ['which reports have the most XSS findings?', { kind: 'top', groupBy: 'report', filter: { text: 'XSS' } }],
    ['how many reports have critical findings?', { kind: 'reports_with', filter: { severity: 'critical' } }],
    ['findings by verdict', { kind: 'breakdown', groupBy: 'verdict' }],
    ['how many findings per report?', { kind: 'breakdown', groupBy: 'report' }],
    ['give me an overview', { kind: 'overview' }],
    ['show me all reports', { kind: 'list_reports' }],
    ['describe finding #7', { kind: 'detail', id: 7 }],
    ['What is the capital of France?', { kind: 'out_of_scope', reason: 'unknown' }],
    ['Can you write a short poem about firewalls?', { kind: 'out_of_scope', reason: 'unknown' }],
    ['drop table findings', { kind: 'out_of_scope', reason: 'write' }],
    ['Please mark finding 12 as fixed', { kind: 'out_of_scope', reason: 'write' }],
  ])('%s', (q, expected) => {
    expect(parseQuestion(q)).toMatchObject(expected);
  });

  it.each([
    ['and high?', { kind: 'count_findings', filter: { text: 'SQL injection', severity: 'high' }, followUp: true }],
    ['what about critical?', { kind: 'count_findings', filter: { text: 'SQL injection', severity: 'critical' }, followUp: true }],
    ['break those down by severity', { kind: 'breakdown', groupBy: 'severity', filter: { text: 'SQL injection' } }],
    ['Which report has the most of those?', { kind: 'top', groupBy: 'report', n: 1, filter: { text: 'SQL injection' } }],
    ['how many of them are in scb__juice-shop-v12.10.2.json?', { kind: 'count_findings', filter: { text: 'SQL injection', reportName: 'scb__juice-shop-v12.10.2.json' } }],
    ['show the first one', { kind: 'detail_ref', position: 0 }],
    ['the last one please', { kind: 'detail_ref', position: -1 }],
  ])('follow-up: %s', (q, expected) => {
    expect(parseQuestion(q, prev)).toMatchObject(expected);
  });

  it('a question that names its own filter is not a follow-up', () => {
    expect(parseQuestion('How many findings mention cookies?', prev)).toMatchObject({ filter: { text: 'cookies' }, followUp: false });
  });

  it('asks for the whole question when a follow-up has nothing to refer to', () => {
    expect(parseQuestion('show the first one')).toEqual({ kind: 'no_previous' });
    expect(parseQuestion('how many of those are high?')).toEqual({ kind: 'no_previous' });
  });

  it('mergeFilters narrows the previous filter and replaces a report given the other way', () => {
    expect(mergeFilters({ text: 'x', reportId: 3 }, { severity: 'low', reportName: 'a.sarif' })).toEqual({ text: 'x', severity: 'low', reportName: 'a.sarif' });
  });
});

describe('lex', () => {
  it('keeps report names, CWE ids and quotes whole, and corrects misspelt structure words only', () => {
    const t = lex('How mnay fidnings in sechub__gosec_2.9.5.sarif.json have CWE-79 or mention "Set-Cookie header"?');
    expect(t.filter((x) => x.kind === 'report').map((x) => x.value)).toEqual(['sechub__gosec_2.9.5.sarif.json']);
    expect(t.filter((x) => x.kind === 'cwe').map((x) => x.value)).toEqual([79]);
    expect(t.filter((x) => x.kind === 'quote').map((x) => x.value)).toEqual(['Set-Cookie header']);
    expect(t.filter((x) => x.kind === 'word').map((x) => x.w)).toEqual(['how', 'many', 'findings', 'in', 'have', 'or', 'mention']);
    expect(lex('glibc jquery cookies').map((x) => x.w)).toEqual(['glibc', 'jquery', 'cookies']);
  });
});
