import 'reflect-metadata';
import { PLANNER_MAX_QUESTION_CHARS, parseQuestion } from './question-parser';
import { mergeFilters, mergeScopes } from './follow-up-scope';
import { lex } from './question-lexer';

describe('parseQuestion', () => {
  const prev = { lastFilter: { text: 'SQL injection' }, lastFindingIds: [41, 42, 43] };

  it.each([
    [
      'count the high XSS bugs',
      { kind: 'count_findings', list: false, filter: { severity: 'high', text: 'XSS' }, followUp: false },
    ],
    [
      'How many findings have the word password?',
      { kind: 'count_findings', list: false, filter: { text: 'password' }, followUp: false },
    ],
    [
      'count findings about hardcoded passwords with high severity',
      {
        kind: 'count_findings',
        list: false,
        filter: { severity: 'high', text: 'hardcoded passwords' },
        followUp: false,
      },
    ],
    [
      'how many sqli findings in dd__flawfinder.sarif',
      {
        kind: 'count_findings',
        list: false,
        filter: { reportName: 'dd__flawfinder.sarif', text: 'sqli' },
        followUp: false,
      },
    ],
    [
      'how many findings mention information disclosure',
      { kind: 'count_findings', list: false, filter: { text: 'information disclosure' }, followUp: false },
    ],
    [
      'How many findings are still open?',
      { kind: 'count_findings', list: false, filter: { verdict: 'still_open' }, followUp: false },
    ],
    [
      'how many findings in report 3',
      { kind: 'count_findings', list: false, filter: { reportId: 3 }, followUp: false },
    ],
    [
      'List critical findings about XSS',
      { kind: 'count_findings', list: true, filter: { severity: 'critical', text: 'XSS' }, followUp: false },
    ],
    ['top 5 CWEs', { kind: 'top', groupBy: 'cwe', n: 5, filter: {}, followUp: false }],
    // Words that are keys of Object.prototype are plain text, not vocabulary.
    [
      'how many findings mention constructor',
      { kind: 'count_findings', list: false, filter: { text: 'constructor' }, followUp: false },
    ],
    [
      'Give me the top three reports by critical findings',
      { kind: 'top', groupBy: 'report', n: 3, filter: { severity: 'critical' }, followUp: false },
    ],
    [
      'which reports have the most XSS findings?',
      { kind: 'top', groupBy: 'report', n: 5, filter: { text: 'XSS' }, followUp: false },
    ],
    [
      'how many reports have critical findings?',
      { kind: 'reports_with', filter: { severity: 'critical' }, followUp: false },
    ],
    ['findings by verdict', { kind: 'breakdown', groupBy: 'verdict', filter: {}, followUp: false }],
    ['how many findings per report?', { kind: 'breakdown', groupBy: 'report', filter: {}, followUp: false }],
    ['give me an overview', { kind: 'overview' }],
    ['show me all reports', { kind: 'list_reports' }],
    ['describe finding #7', { kind: 'detail', id: 7 }],
    // Any detail word asks for the finding `#n` names.
    ['more info on #7', { kind: 'detail', id: 7 }],
    ['view #7', { kind: 'detail', id: 7 }],
    ['What is the capital of France?', { kind: 'out_of_scope', reason: 'unknown' }],
    ['Can you write a short poem about firewalls?', { kind: 'out_of_scope', reason: 'unknown' }],
    ['drop table findings', { kind: 'out_of_scope', reason: 'write' }],
    ['Please mark finding 12 as fixed', { kind: 'out_of_scope', reason: 'write' }],
  ])('%s', (q, expected) => {
    expect(parseQuestion(q)).toEqual(expected);
  });

  it.each([
    [
      'and high?',
      {
        kind: 'count_findings',
        list: false,
        filter: { text: 'SQL injection', severity: 'high' },
        followUp: true,
        previous: { filter: { text: 'SQL injection' } },
        asked: { filter: { severity: 'high' } },
      },
    ],
    [
      'what about critical?',
      {
        kind: 'count_findings',
        list: false,
        filter: { text: 'SQL injection', severity: 'critical' },
        followUp: true,
        previous: { filter: { text: 'SQL injection' } },
        asked: { filter: { severity: 'critical' } },
      },
    ],
    [
      'break those down by severity',
      {
        kind: 'breakdown',
        groupBy: 'severity',
        filter: { text: 'SQL injection' },
        followUp: true,
        previous: { filter: { text: 'SQL injection' } },
        asked: { filter: {} },
      },
    ],
    [
      'Which report has the most of those?',
      {
        kind: 'top',
        groupBy: 'report',
        n: 1,
        filter: { text: 'SQL injection' },
        followUp: true,
        previous: { filter: { text: 'SQL injection' } },
        asked: { filter: {} },
      },
    ],
    [
      'how many of them are in scb__juice-shop-v12.10.2.json?',
      {
        kind: 'count_findings',
        list: false,
        filter: { text: 'SQL injection', reportName: 'scb__juice-shop-v12.10.2.json' },
        followUp: true,
        previous: { filter: { text: 'SQL injection' } },
        asked: { filter: { reportName: 'scb__juice-shop-v12.10.2.json' } },
      },
    ],
    ['show the first one', { kind: 'detail_ref', position: 0 }],
    ['the last one please', { kind: 'detail_ref', position: -1 }],
  ])('follow-up: %s', (q, expected) => {
    expect(parseQuestion(q, prev)).toEqual(expected);
  });

  it.each(Object.getOwnPropertyNames(Object.prototype))('reads %s as text, in English and Russian', (w) => {
    for (const q of [
      `how many findings mention ${w}`,
      `${w} findings by severity`,
      `сколько находок про ${w}`,
    ])
      expect(() => parseQuestion(q, prev)).not.toThrow();
    expect(parseQuestion(`how many findings mention ${w}`)).toMatchObject({
      filter: { text: w.replace(/_/g, '') }, // the lexer drops underscores at a word's edges
    });
  });

  it('a question that names its own filter is not a follow-up', () => {
    expect(parseQuestion('How many findings mention cookies?', prev)).toMatchObject({
      filter: { text: 'cookies' },
      followUp: false,
    });
  });

  it('asks for the whole question when a follow-up has nothing to refer to', () => {
    expect(parseQuestion('show the first one')).toEqual({ kind: 'no_previous' });
    expect(parseQuestion('how many of those are high?')).toEqual({ kind: 'no_previous' });
  });

  it('mergeFilters narrows the previous filter and replaces a report given the other way', () => {
    expect(mergeFilters({ text: 'x', reportId: 3 }, { severity: 'low', reportName: 'a.sarif' })).toEqual({
      text: 'x',
      severity: 'low',
      reportName: 'a.sarif',
    });
  });
});

describe('parseQuestion: parts that one tool filter does not express', () => {
  it.each([
    ['How many high or critical findings are there?', ['critical', 'high']],
    ['how many critical and high findings', ['critical', 'high']],
    ['How many high/critical findings?', ['critical', 'high']],
    ['high+ findings?', ['critical', 'high']],
    ['How many findings are medium or higher?', ['critical', 'high', 'medium']],
    ['how many findings are at least medium', ['critical', 'high', 'medium']],
    ['findings above medium', ['critical', 'high']],
    ['how many findings are low or below', ['low', 'info']],
    ['How many findings are between low and high?', ['high', 'medium', 'low']],
    // A range is one more group: "or" adds it to the others (it was once intersected, leaving none).
    ['how many findings are critical or from low to medium?', ['critical', 'medium', 'low']],
    ['how many findings are from medium to critical but not high?', ['critical', 'medium']],
    ['how many findings are not info?', ['critical', 'high', 'medium', 'low']],
    ['how many non-info findings', ['critical', 'high', 'medium', 'low']],
    ['How many findings, excluding informational?', ['critical', 'high', 'medium', 'low']],
    ['How many findings other than low?', ['critical', 'high', 'medium', 'info']],
    ['How many findings are neither low nor info?', ['critical', 'high', 'medium']],
    ["how many findings aren't low or info", ['critical', 'high', 'medium']],
  ])('severity set: %s', (q, set) => {
    const plan = parseQuestion(q);
    expect(plan).toMatchObject({ kind: 'count_findings', filter: {}, scope: { severities: set } });
    expect(plan).not.toHaveProperty('filter.text');
  });

  it.each([
    ['How many high-severity findings are there?', { severity: 'high' }],
    ["How many findings have a severity of 'high'?", { severity: 'high' }],
    ['how many findings are critical but not info', { severity: 'critical' }],
  ])('one severity: %s', (q, filter) => {
    expect(parseQuestion(q)).toMatchObject({ kind: 'count_findings', filter });
  });

  it.each([
    ['How many findings are not about SQL injection?', { text: 'SQL injection' }],
    ['how many findings are not fixed', { verdict: 'fixed' }],
    ['how many findings without CWE-79', { cwe: 79 }],
    ['How many findings are not in dd__flawfinder.sarif?', { reportName: 'dd__flawfinder.sarif' }],
  ])('exclusion: %s', (q, exclude) => {
    expect(parseQuestion(q)).toMatchObject({ kind: 'count_findings', scope: { exclude } });
  });

  it.each([
    ['How many findings have no CWE?', { key: 'cwe', present: false }],
    ['how many findings have a CWE id?', { key: 'cwe', present: true }],
    ['How many findings without a verdict?', { key: 'verdict', present: false }],
  ])('with / without: %s', (q, has) => {
    expect(parseQuestion(q)).toMatchObject({ kind: 'count_findings', scope: { has } });
  });

  it.each([
    [
      'How many critical findings are in the juice shop report?',
      { text: 'juice shop', negated: false, loose: false },
      { severity: 'critical' },
    ],
    ['How many findings does the fortify report have?', { text: 'fortify', loose: false }, {}],
    ['how many findings in juice-shop?', { text: 'juice-shop', loose: true }, {}],
    ['How many findings does juice shop have?', { text: 'juice shop', loose: true }, {}],
    ['How many findings does jQuery have?', { text: 'jQuery', loose: true }, {}],
    ['How many findings are not in the juice shop report?', { text: 'juice shop', negated: true }, {}],
    ['how many findings in every report except fortify', { text: 'fortify', negated: true }, {}],
  ])('report named by part of its file name: %s', (q, reportHint, filter) => {
    const plan = parseQuestion(q);
    expect(plan).toMatchObject({ kind: 'count_findings', reportHint, filter });
    expect(plan).not.toHaveProperty('filter.text');
  });

  it.each([
    ['How many findings were imported last week?', 'imported last week', 'time'],
    ['How many critical findings since 2023?', 'since 2023', 'time'],
    ['How many findings in the last 30 days?', 'in the last 30 days', 'time'],
    ['How many new findings are there?', 'new', 'time'],
    ['How many findings mention XSS or SQL injection?', 'XSS or SQL injection', 'combination'],
    ['How many findings mention cookies and XSS?', 'and XSS', 'combination'],
    ['How many findings have CWE-79 or CWE-89?', 'CWE-89', 'combination'],
    ['How many findings have more than one CWE?', 'more than one CWE', 'combination'],
    ['How many findings have a CVSS score above 9?', 'CVSS score above 9', 'combination'],
    ['Which report has the least findings?', 'least', 'order'],
    ['How many findings are in the first report?', 'first report', 'unknown'],
    ['How many unique findings are there?', 'unique', 'unknown'],
  ])('not applicable, so no number: %s', (q, text, reason) => {
    const plan = parseQuestion(q);
    expect(plan.kind).toBe('unsupported');
    if (plan.kind === 'unsupported')
      expect(plan.parts).toContainEqual(expect.objectContaining({ text, reason }));
  });

  it('filler and scaffolding do not make a question unsupported', () => {
    for (const q of [
      'Hey buddy, how many findings do we have, roughly?',
      'How many findings are there at the moment?',
      'How many reports have been imported?',
      'which CWE is most common?',
    ]) {
      expect(parseQuestion(q).kind).not.toBe('unsupported');
    }
  });

  it('a follow-up keeps the previous set of severities and replaces it with a new severity', () => {
    const prevSet = { lastFilter: {}, lastScope: { severities: ['critical' as const, 'high' as const] } };
    expect(parseQuestion('and how many of those mention XSS?', prevSet)).toMatchObject({
      filter: { text: 'XSS' },
      scope: { severities: ['critical', 'high'] },
      followUp: true,
    });
    const replaced = parseQuestion('what about low?', prevSet);
    expect(replaced).toMatchObject({ filter: { severity: 'low' }, followUp: true });
    expect(replaced).not.toHaveProperty('scope.severities');
    expect(parseQuestion('excluding low?', { lastFilter: { text: 'cookies' } })).toMatchObject({
      filter: { text: 'cookies' },
      scope: { severities: ['critical', 'high', 'medium', 'info'] },
      followUp: true,
    });
  });

  it('mergeScopes: a new topic replaces an exclusion of a topic, other parts are kept', () => {
    expect(
      mergeScopes(
        { filter: { severity: 'high' }, scope: { exclude: { text: 'XSS' } } },
        { filter: { text: 'SQL injection' } },
      ),
    ).toEqual({ filter: { severity: 'high', text: 'SQL injection' } });
    expect(
      mergeScopes(
        { filter: { text: 'x' }, scope: { severities: ['critical', 'high'] } },
        { filter: {}, scope: { exclude: { verdict: 'fixed' } } },
      ),
    ).toEqual({
      filter: { text: 'x' },
      scope: { severities: ['critical', 'high'], exclude: { verdict: 'fixed' } },
    });
  });
});

describe('lex', () => {
  it('keeps report names, CWE ids and quotes whole, and corrects misspelt structure words only', () => {
    const t = lex(
      'How mnay fidnings in sechub__gosec_2.9.5.sarif.json have CWE-79 or mention "Set-Cookie header"?',
    );
    expect(t.filter((x) => x.kind === 'report').map((x) => x.value)).toEqual([
      'sechub__gosec_2.9.5.sarif.json',
    ]);
    expect(t.filter((x) => x.kind === 'cwe').map((x) => x.value)).toEqual([79]);
    expect(t.filter((x) => x.kind === 'quote').map((x) => x.value)).toEqual(['Set-Cookie header']);
    expect(t.filter((x) => x.kind === 'word').map((x) => x.w)).toEqual([
      'how',
      'many',
      'findings',
      'in',
      'have',
      'or',
      'mention',
    ]);
    expect(lex('glibc jquery cookies').map((x) => x.w)).toEqual(['glibc', 'jquery', 'cookies']);
  });
});

describe('long messages', () => {
  it('leaves a message over PLANNER_MAX_QUESTION_CHARS unread, and reads one at the limit', () => {
    const atLimit = `How many findings mention ${'y'.repeat(PLANNER_MAX_QUESTION_CHARS - 26)}`;
    expect(atLimit).toHaveLength(PLANNER_MAX_QUESTION_CHARS);
    expect(parseQuestion(atLimit).kind).not.toBe('too_long');
    expect(parseQuestion(`${atLimit}?`)).toEqual({
      kind: 'too_long',
      length: PLANNER_MAX_QUESTION_CHARS + 1,
    });
  });

  it('lexes a long run of letters in linear time (a report-name pattern was quadratic: 20,000 letters took 0.2 s)', () => {
    const started = performance.now();
    const tokens = lex(`how many findings in ${'y'.repeat(200_000)} dd__flawfinder.sarif`);
    // Quadratic, 200,000 letters took ~20 s; linear, well under a second.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(tokens.find((t) => t.kind === 'report')?.value).toBe('dd__flawfinder.sarif');
  });
});

describe('punctuation (the scan holds it as ⟨punct⟩)', () => {
  const prev = { lastFilter: { text: 'SQL injection' }, lastFindingIds: [41, 42, 43] };

  it('reads an ordinal followed by a question mark as a position', () => {
    expect(parseQuestion('the last?', prev)).toEqual({ kind: 'detail_ref', position: -1 });
    expect(parseQuestion('and the second?', prev)).toEqual({ kind: 'detail_ref', position: 1 });
  });

  it('a negation that ends a clause ("… or not?") is no exclusion', () => {
    expect(parseQuestion('are there critical findings or not?')).toEqual({
      kind: 'count_findings',
      list: false,
      filter: { severity: 'critical' },
      followUp: false,
    });
  });

  it('punctuation before the share word is scaffolding, and never shown as ⟨punct⟩', () => {
    expect(parseQuestion('Please, what share of findings are critical?')).toEqual(
      parseQuestion('Please what share of findings are critical?'),
    );
    expect(JSON.stringify(parseQuestion('so, what share of findings are critical?'))).not.toContain('⟨');
    expect(parseQuestion('CWE-79: what share of findings are critical?')).toMatchObject({
      kind: 'unsupported',
      parts: [{ text: 'CWE-79', reason: 'unknown' }],
    });
  });
});

describe('what is counted', () => {
  it('counts reports only when they are named before any finding noun', () => {
    expect(parseQuestion('how many reports have critical findings?')).toEqual({
      kind: 'reports_with',
      filter: { severity: 'critical' },
      followUp: false,
    });
    expect(parseQuestion('number of findings of reports with XSS')).toEqual({
      kind: 'count_findings',
      list: false,
      filter: { text: 'XSS' },
      followUp: false,
    });
  });
});
