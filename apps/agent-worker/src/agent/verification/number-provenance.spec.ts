import 'reflect-metadata';
import { formatReports } from '@corpus-chat/corpus-queries';
import { check, countBy, search, SEVERITY_GROUPS } from '../testing/provenance-evidence';
import { reaskMessage, verifyNumbers, type ProvenanceEvidence } from './number-provenance';

describe('verifyNumbers: the real examples', () => {
  it('flags an invented total', () => {
    expect(check('The exact total is 84 findings.', [search(77)])).toEqual({
      checked: 1,
      unsupported: ['84'],
    });
  });

  it('accepts the total and the number of rows shown', () => {
    expect(check('77 findings, 5 shown.', [search(77, [{}, {}, {}, {}, {}])])).toEqual({
      checked: 2,
      unsupported: [],
    });
  });

  it('accepts a part, the whole and their share rounded as written; a share off by a tenth is flagged', () => {
    const evidence = [countBy('severity', SEVERITY_GROUPS)];
    expect(check('72 of 4,439 findings (1.6%) are critical.', evidence)).toEqual({
      checked: 3,
      unsupported: [],
    });
    expect(check('72 of 4,439 findings (1.7%) are critical.', evidence).unsupported).toEqual(['1.7%']);
  });

  it('reads number words', () => {
    expect(check('There are twelve findings.', [search(12)])).toEqual({ checked: 1, unsupported: [] });
    expect(check('There are thirteen findings.', [search(12)]).unsupported).toEqual(['thirteen']);
  });

  it('accepts a CVE id and a version written in a returned row', () => {
    const evidence = [
      search(1, [{ title: 'CVE-2021-44228: log4j-core 2.14.1 allows remote code execution' }]),
    ];
    expect(check('CVE-2021-44228 in log4j 2.14.1.', evidence)).toEqual({ checked: 2, unsupported: [] });
    expect(check('CVE-2021-44229 in log4j 2.15.0.', evidence).unsupported).toEqual([
      'CVE-2021-44229',
      '2.15.0',
    ]);
  });
});

describe("verifyNumbers: a model's markdown answer", () => {
  const evidence = [countBy('severity', SEVERITY_GROUPS)];
  const table = [
    'Here is the breakdown of the **4,439** findings by severity:',
    '',
    '| Severity | Count | Share |',
    '|---|---:|---:|',
    '| Critical | 72 | 1.6% |',
    '| High | 333 | 7.5% |',
    '| Medium | 2,273 | 51.2% |',
    '| Low | 588 | 13.2% |',
    '| Info | 1,173 | 26.4% |',
    '',
    '1. Critical and high together: **405** (9.1%).',
    '2. Everything but info: 3,266.',
  ].join('\n');

  it('supports every count, share and computed total of a table and a numbered list', () => {
    expect(check(table, evidence, 'Give me a breakdown by severity with percentages')).toEqual({
      checked: 14,
      unsupported: [],
    });
  });

  it('flags the one cell that is off', () => {
    expect(check(table.replace('| 588 |', '| 558 |'), evidence).unsupported).toEqual(['558']);
  });
});

describe('verifyNumbers: sources', () => {
  it('an answer without numbers checks nothing; one with numbers and no tool call supports none', () => {
    expect(check('I can only answer questions about the corpus.')).toEqual({ checked: 0, unsupported: [] });
    expect(check('There are 77 findings and 1 report.')).toEqual({ checked: 2, unsupported: ['77', '1'] });
  });

  it("accepts the numbers of the operator's message and of the call's arguments", () => {
    const evidence = [
      countBy('report', [
        ['a.sarif', 40],
        ['b.sarif', 30],
        ['c.sarif', 20],
        ['d.sarif', 10],
      ]),
    ];
    expect(
      check('The top 3 reports: a.sarif 40, b.sarif 30, c.sarif 20.', evidence, 'top 3 reports').unsupported,
    ).toEqual([]);
    expect(check('The top 7 reports', evidence, 'top reports').unsupported).toEqual(['7']);
    expect(check('Showing 25 of 77.', [search(77, [], { limit: 25 })]).unsupported).toEqual([]);
  });

  it('never adds up a limit, a row tally, an id or a number of the message: a total off by a few stays unsupported', () => {
    const rows = [{ id: 1 }, { id: 2 }, { severity: 'low' as const }, { severity: 'low' as const }, {}];
    const evidence = [search(77, rows, { limit: 10 })];
    // 72 more than shown is 77 - 5 returned, a difference of two counts.
    expect(
      check('3 of the 5 shown are high (60%), 77 in all, 72 more not shown.', evidence, 'top 4?').unsupported,
    ).toEqual([]);
    for (const off of ['73', '78', '79', '81', '87']) {
      expect(check(`${off} findings.`, evidence, 'top 4?').unsupported).toEqual([off]);
    }
  });

  it('accepts ids, CWE ids, CVSS scores and dates inside returned rows', () => {
    const evidence = [
      search(2, [
        { id: 4711, cwe: [89] },
        { id: 4712, cwe: [79] },
      ]),
    ];
    expect(check('Finding #4711 (CWE-89) and #4712 (CWE-79).', evidence).unsupported).toEqual([]);
    expect(check('Finding #4713 (CWE-22).', evidence).unsupported).toEqual(['4713', 'CWE-22']);
    const detail: ProvenanceEvidence = {
      name: 'finding_detail',
      args: { id: 9 },
      content: JSON.stringify({
        found: true,
        id: 9,
        cvss: { base_score: 9.8 },
        description: 'Published 2026-11-30T08:00:00Z',
      }),
    };
    expect(check('Finding 9 has CVSS 9.8, published 2026-11-30.', [detail]).unsupported).toEqual([]);
    expect(check('Published on Nov 30, 2026 at 08:00.', [detail]).unsupported).toEqual([]);
    expect(check('Finding 9 has CVSS 9.9, published 2026-12-01.', [detail]).unsupported).toEqual([
      '9.9',
      '2026-12-01',
    ]);
  });

  it('accepts a number cut short by "…" in quoted text when it starts a source number', () => {
    const evidence = [search(1, [{ title: 'Buffer of 65536 bytes' }])];
    expect(check('Title: Buffer of 655… (cut)', evidence).unsupported).toEqual([]);
    expect(check('Title: Buffer of 657… (cut)', evidence).unsupported).toEqual(['657']);
  });
});

describe('verifyNumbers: exact arithmetic', () => {
  const evidence = [countBy('severity', SEVERITY_GROUPS)];

  it('accepts part sums of one list and the whole minus parts, not a difference of two groups', () => {
    expect(check('Critical and high: 405.', evidence).unsupported).toEqual([]); // 72 + 333
    expect(check('All but medium and low: 1578.', evidence).unsupported).toEqual([]); // 4439 - 2273 - 588
    expect(check('Medium minus low: 1685.', evidence).unsupported).toEqual(['1685']); // 2273 - 588
    expect(check('Critical, high or low: 993.', evidence).unsupported).toEqual([]); // a part of the severities
    expect(check('Exactly 406.', evidence).unsupported).toEqual(['406']);
  });

  it('accepts the sum of every group of a long list, and how many groups have a count', () => {
    const groups: [string, number][] = Array.from({ length: 12 }, (_, i) => [`r${i}.sarif`, i * 10]);
    const reports = countBy('report', groups);
    const total = groups.reduce((n, [, c]) => n + c, 0);
    const withFindings = check(`${total} findings in 11 reports.`, [
      { ...reports, content: reports.content.replace(/"total":\d+/, '"total":0') },
    ]);
    expect(withFindings.unsupported).toEqual([]);
  });

  it('accepts how many groups name something, without the group of findings with none', () => {
    const cwes = countBy('cwe', [
      ['none', 500],
      ['79', 40],
      ['89', 8],
      ['22', 7],
    ]);
    expect(check('555 findings in 3 CWEs.', [cwes]).unsupported).toEqual([]);
    expect(check('555 findings in 2 CWEs.', [cwes]).unsupported).toEqual(['2']);
  });

  it('accepts "… and N more" under a list when the listed items and N make a supported number of items', () => {
    const groups: [string, number][] = Array.from({ length: 9 }, (_, i) => [`r${i}.sarif`, 100 + i * 1000]);
    const evidence = [countBy('report', groups)];
    const list = groups
      .slice(0, 3)
      .map(([k, c]) => `- ${k}: ${c}`)
      .join('\n');
    expect(check(`${list}\n- … and 6 more`, evidence).unsupported).toEqual([]);
    expect(check(`${list}\n- … and 7 more`, evidence).unsupported).toEqual(['7']);
    expect(check(`Some of them, and 6 more`, evidence).unsupported).toEqual(['6']);
  });

  it('accepts a sum of the same count over several calls (one call per severity)', () => {
    const perSeverity = ['critical', 'high', 'medium'].map((s, i) =>
      countBy('report', [['a.sarif', 1000 + i * 7]], { severity: s }),
    );
    expect(check('a.sarif has 3021 findings.', perSeverity).unsupported).toEqual([]); // 1000 + 1007 + 1014
  });

  it('accepts a share rounded or truncated to the decimals written, as a percentage or a fraction', () => {
    const thirds = [
      countBy('severity', [
        ['high', 2],
        ['low', 1],
      ]),
    ];
    for (const ok of ['66.7%', '66.6%', '67%', '66.67 %', '0.667', '0.6', '66.7 percent', '66,7 процентов']) {
      expect({ ok, unsupported: check(`High: ${ok} of them.`, thirds).unsupported }).toEqual({
        ok,
        unsupported: [],
      });
    }
    expect(check('High: 66.8% of them.', thirds).unsupported).toEqual(['66.8%']);
    const severities = [countBy('severity', SEVERITY_GROUPS)];
    expect(check('High or critical: 405 of 4,439 (9.1%).', severities).unsupported).toEqual([]);
    expect(check('High or critical: 405 of 4,439 (9.3%).', severities).unsupported).toEqual(['9.3%']);
  });
});

describe('reaskMessage', () => {
  it('names the unsupported numbers and each tool total', () => {
    const evidence = [
      search(77, [{}], { text: 'SQL injection', limit: 5 }),
      countBy('severity', SEVERITY_GROUPS),
    ];
    const v = check('The exact total is 84 and 90.', evidence);
    const msg = reaskMessage(v, evidence);
    expect(msg).toContain('"84", "90"');
    expect(msg).toContain('- search_findings({"text":"SQL injection","limit":5}): total 77, returned 1');
    expect(msg).toContain('- count_findings_by({"groupBy":"severity","filter":{}}): total 4439');
  });

  it('says that no tool was called', () => {
    const msg = reaskMessage({ checked: 1, unsupported: ['77'] }, []);
    expect(msg).toMatch(/"77"[^]*You called no tool/);
    expect(msg).not.toMatch(/these results/);
  });

  it("names a failed call's error", () => {
    const failed = {
      name: 'search_findings',
      args: { severity: 'urgent' },
      content: JSON.stringify({ error: 'severity must be one of critical, high' }),
    };
    expect(reaskMessage({ checked: 1, unsupported: ['3'] }, [failed])).toContain(
      'failed (severity must be one of critical, high)',
    );
  });
});

describe('formatReports content', () => {
  it('accepts the findings summed over every report and how many reports have each status', () => {
    const reports = Array.from({ length: 9 }, (_, i) => ({
      id: i + 1,
      filename: `r${i}.sarif`,
      format: 'sarif',
      status: i < 7 ? 'imported' : 'failed',
      archived: false,
      findingCount: i * 11,
      bySeverity: { critical: 0, high: i, medium: 0, low: 0, info: 0 },
    }));
    const evidence = [
      { name: 'list_all_reports', args: {}, content: JSON.stringify(formatReports(reports as never).model) },
    ];
    expect(
      check('There are 9 reports (7 imported, 2 failed), holding 396 findings.', evidence).unsupported,
    ).toEqual([]);
  });
});

describe('earlier answers of the thread', () => {
  it('supports a number a follow-up repeats from an earlier answer, but never adds it up', () => {
    const input = {
      userMessage: 'And how many of those are high?',
      evidence: [],
      earlierAnswers: ['184 findings match text SQL injection.'],
    };
    expect(
      verifyNumbers({ ...input, answer: 'Of the 184 SQL injection findings, none are listed here.' })
        .unsupported,
    ).toEqual([]);
    expect(verifyNumbers({ ...input, answer: 'There are 185.' }).unsupported).toEqual(['185']);
    expect(
      verifyNumbers({ ...input, earlierAnswers: [], answer: 'Of the 184 findings…' }).unsupported,
    ).toEqual(['184']);
  });
});
