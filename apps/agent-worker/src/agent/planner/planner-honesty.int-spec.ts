/**
 * "Exact answers, never a made-up number" on wordings the planner does not fully understand: on the
 * questions.json corpus imported with the real importer, every question here must get either the
 * exact right number or no number at all. Expected numbers come from SQL over the imported rows or
 * from the query functions (for text searches, whose semantics the query layer owns); nothing is
 * copied from the planner's output.
 */
import 'reflect-metadata';
import type { FindingFilter, Severity } from '@corpus-chat/contracts';
import { searchFindings } from '@corpus-chat/corpus-queries';
import { usePlannerOnQuestionsCorpus } from '../testing/questions-corpus-planner';
import { TestThread, askInThread, numbersIn, type CapturedTurn } from '../testing/turn-harness';

const setup = usePlannerOnQuestionsCorpus();

const ask = (...turns: string[]): Promise<CapturedTurn> => askInThread(setup.planner, turns);

/** One number from SQL over the current (not archived) findings `f`, joined to their report `r`. */
async function sqlCount(where: string, params: unknown[] = []): Promise<number> {
  const [{ n }] = await setup.db.dataSource.query(
    `SELECT count(*)::int AS n FROM findings f LEFT JOIN reports r ON r.id = f.report_id WHERE NOT f.archived AND (${where})`,
    params,
  );
  return n;
}
const bySeverities = (sevs: Severity[], extra = 'TRUE', params: unknown[] = []) =>
  sqlCount(`f.severity::text = ANY($${params.length + 1}::text[]) AND ${extra}`, [...params, sevs]);
/** The query layer's exact total for a filter (text searches: the query layer defines what a topic matches). */
async function queryTotal(filter: FindingFilter): Promise<number> {
  return (await searchFindings(setup.db.dataSource.manager, { ...filter, limit: 1 })).total;
}
async function filenamesLike(pattern: string): Promise<string[]> {
  const rows: { filename: string }[] = await setup.db.dataSource.query(
    `SELECT filename FROM reports WHERE NOT archived AND filename ILIKE $1 ORDER BY filename`,
    [pattern],
  );
  return rows.map((r) => r.filename);
}

/** The numbers an answer states as counts (bold). */
const boldNumbers = (text: string) =>
  [...text.matchAll(/\*\*(\d[\d,]*)\*\*/g)].map((m) => Number(m[1].replace(/,/g, '')));

function expectExact({ outcome }: CapturedTurn, n: number): void {
  const text = outcome.content;
  expect({ headline: boldNumbers(text)[0], text }).toEqual({ headline: n, text });
  expect(numbersIn(text)).toContain(n);
}

/** No count at all: no bold number, and the answer says it could not. */
function expectNoNumber({ outcome, events }: CapturedTurn): void {
  const text = outcome.content;
  expect({ bold: boldNumbers(text), text }).toEqual({ bold: [], text });
  expect(text).toMatch(/can't|couldn't|could not/);
  // Nothing but report names was looked up: no count was even computed.
  const calls = events.filter((e) => e.type === 'tool.call').map((e) => (e as { name: string }).name);
  expect(calls.filter((n) => n !== 'list_all_reports')).toEqual([]);
}

const JUICE = 'scb__juice-shop-v12.10.2.json';
const FORTIFY = 'sdk__fortify-fpr-large.sarif';
const FLAWFINDER = 'dd__flawfinder.sarif';

describe('reproduction 1: a set of severities is counted as a set, never as a topic', () => {
  it.each([
    'How many high or critical findings are there?',
    'how many critical and high findings',
    'How many high/critical findings?',
    'how many findings are high+ ?',
    'How many findings are high severity or above?',
  ])('%s', async (q) => {
    const turn = await ask(q);
    expectExact(turn, await bySeverities(['high', 'critical']));
    // Each severity's exact count is shown, and no severity word was searched as text.
    expect(turn.outcome.content).toContain(`high ${await bySeverities(['high'])}`);
    expect(turn.outcome.content).toContain(`critical ${await bySeverities(['critical'])}`);
    for (const e of turn.events)
      if (e.type === 'tool.call') expect(JSON.stringify(e.args)).not.toMatch(/"text"/);
  });
});

describe('reproduction 2: a negated severity is the total minus that severity', () => {
  it.each([
    ['how many findings are not info?', ['critical', 'high', 'medium', 'low']],
    ['How many findings are there, excluding informational?', ['critical', 'high', 'medium', 'low']],
    ['how many non-info findings', ['critical', 'high', 'medium', 'low']],
    ['How many findings other than low?', ['critical', 'high', 'medium', 'info']],
    ["How many findings aren't low or info?", ['critical', 'high', 'medium']],
  ] as [string, Severity[]][])('%s', async (q, sevs) => {
    expectExact(await ask(q), await bySeverities(sevs));
  });
});

describe('reproduction 3: a report named by part of its file name', () => {
  it('"the juice shop report" is scb__juice-shop-v12.10.2.json, and the count is that report\'s', async () => {
    const turn = await ask('How many critical findings are in the juice shop report?');
    expectExact(turn, await sqlCount(`f.severity = 'critical' AND r.filename = $1`, [JUICE]));
    expect(turn.outcome.content).toContain(JUICE);
  });

  it.each([
    ['How many findings does the fortify report have?', FORTIFY],
    ['how many findings in the flawfinder report', FLAWFINDER],
    ['How many findings are in juice-shop?', JUICE],
  ])('%s', async (q, filename) => {
    const turn = await ask(q);
    expectExact(turn, await sqlCount(`r.filename = $1`, [filename]));
    expect(turn.outcome.content).toContain(filename);
  });

  it('a name that fits several reports gets no number and lists every candidate', async () => {
    const turn = await ask('How many findings are in the zap report?');
    expectNoNumber(turn);
    const candidates = await filenamesLike('%zap%');
    expect(candidates.length).toBeGreaterThan(1);
    for (const f of candidates) expect(turn.outcome.content).toContain(f);
  });

  it('a name that fits no report gets no number and says so', async () => {
    expect(await filenamesLike('%nessus%')).toEqual([]);
    const turn = await ask('How many findings are in the nessus report?');
    expectNoNumber(turn);
    expect(turn.outcome.content).toMatch(/No report's file name matches 'nessus'/);
  });
});

describe('reproduction 4: time filters are refused, not ignored', () => {
  it.each([
    'How many findings were imported last week?',
    'How many critical findings since 2023?',
    'how many findings were added yesterday',
  ])('%s', async (q) => {
    const turn = await ask(q);
    expectNoNumber(turn);
    expect(turn.outcome.content).toMatch(/No tool filters by date/);
  });
});

describe('reproduction 5: words the planner could not apply are named, and no number is given', () => {
  it.each([
    ['how many findings affect the login page in the Java code?', 'Java code'],
    ['How many findings have a CVSS score above 9?', 'CVSS score above 9'],
    ['How many findings mention cookies and XSS?', 'and XSS'],
    ['How many findings does jQuery have?', 'jQuery'],
  ])('%s', async (q, words) => {
    const turn = await ask(q);
    expectNoNumber(turn);
    expect(turn.outcome.content).toContain(`'${words}'`);
  });

  it('still answers the 40 questions of questions.json (see planner.int-spec.ts) and harmless filler', async () => {
    expectExact(await ask('Hey, how many findings do we have, roughly?'), await sqlCount('TRUE'));
  });
});

describe('reproduction 6: a follow-up says truthfully what it did with the previous filter', () => {
  it('"What about XSS?" replaces the topic and says so', async () => {
    const turn = await ask('How many findings relate to SQL injection?', 'What about XSS?');
    expectExact(turn, await queryTotal({ text: 'XSS' }));
    expect(turn.outcome.content).toContain("text 'XSS' instead of text 'SQL injection'");
    expect(turn.outcome.content).not.toMatch(/narrow/);
  });

  it('"and how many of those are high?" narrows and says what it kept', async () => {
    const turn = await ask('How many findings relate to SQL injection?', 'and how many of those are high?');
    expectExact(turn, await queryTotal({ text: 'SQL injection', severity: 'high' }));
    expect(turn.outcome.content).toContain("narrowed to severity high; kept text 'SQL injection'");
  });

  it('"and in the fortify report?" asks the previous question of another report, and says which parts it kept', async () => {
    const turn = await ask(
      'How many critical findings are in the juice shop report?',
      'and in the fortify report?',
    );
    expectExact(turn, await sqlCount(`f.severity = 'critical' AND r.filename = $1`, [FORTIFY]));
    expect(turn.outcome.content).toContain(
      `report ${FORTIFY} instead of report ${JUICE}; kept severity critical`,
    );
  });

  it('a set of severities carries over to the next question', async () => {
    const turn = await ask(
      'How many high or critical findings are there?',
      'and how many of those mention XSS?',
    );
    const r = await setup.db.dataSource.manager.transaction(async (m) => ({
      high: (await searchFindings(m, { text: 'XSS', severity: 'high', limit: 1 })).total,
      critical: (await searchFindings(m, { text: 'XSS', severity: 'critical', limit: 1 })).total,
    }));
    expectExact(turn, r.high + r.critical);
    expect(turn.outcome.content).toContain('kept severity critical or high');
  });

  it('"show the first one" after a count that listed nothing does not open an older answer\'s finding', async () => {
    const thread = new TestThread(setup.planner);
    await thread.ask('How many findings relate to SQL injection?');
    await thread.ask('breakdown by severity');
    const turn = await thread.ask('show the first one');
    expect(turn.events.some((e) => e.type === 'tool.call')).toBe(false);
    expect(turn.outcome.content).toMatch(/nothing earlier/);
  });
});

describe('reproduction 7: CWE labels are printed once', () => {
  it('breakdown and top CWEs', async () => {
    const [top] = await setup.db.dataSource.query(
      `SELECT c AS cwe, count(*)::int AS n FROM findings f, unnest(f.cwe) c WHERE NOT f.archived GROUP BY c ORDER BY n DESC, c LIMIT 1`,
    );
    for (const q of ['breakdown of findings by CWE', 'top 5 CWEs']) {
      const { outcome } = await ask(q);
      expect(outcome.content).not.toMatch(/CWE-(\d+)\W+CWE-\1\b/);
      expect(outcome.content).toMatch(new RegExp(`CWE-${top.cwe}\\**: ${top.n}\\b`));
    }
  });
});

describe('reproduction 8: answers read like an answer, with the number, the filter and the source', () => {
  it('a topic count', async () => {
    const { outcome } = await ask('How many findings relate to SQL injection?');
    const n = await queryTotal({ text: 'SQL injection' });
    expect(outcome.content.split('\n')[0]).toBe(
      `**${n}** findings match text 'SQL injection' (the text also matches the SQL injection class: CWE-89). Exact total from search_findings.`,
    );
  });
  it('an unfiltered count', async () => {
    const { outcome } = await ask('How many findings are there in total?');
    expect(outcome.content.split('\n')[0]).toBe(
      `There are **${await sqlCount('TRUE')}** findings in total. Exact total from search_findings, no filter.`,
    );
  });
});

/** More wordings: the exact number (computed here) or, where the planner cannot be exact, no number. */
const ADVERSARIAL: [string, (() => Promise<number>) | null][] = [
  ['how many findings are at least medium?', () => bySeverities(['critical', 'high', 'medium'])],
  ['How many findings are neither low nor info?', () => bySeverities(['critical', 'high', 'medium'])],
  ['How many findings are between low and high?', () => bySeverities(['high', 'medium', 'low'])],
  ['How many high-severity findings are there?', () => bySeverities(['high'])],
  [
    'How many critical or high findings relate to SQL injection?',
    async () =>
      (await queryTotal({ text: 'SQL injection', severity: 'critical' })) +
      (await queryTotal({ text: 'SQL injection', severity: 'high' })),
  ],
  [
    'how many SQL injection findings are not critical?',
    async () =>
      (await queryTotal({ text: 'SQL injection' })) -
      (await queryTotal({ text: 'SQL injection', severity: 'critical' })),
  ],
  [
    'how many non-critical findings mention cookies',
    async () =>
      (await queryTotal({ text: 'cookies' })) - (await queryTotal({ text: 'cookies', severity: 'critical' })),
  ],
  [
    'How many findings are not about SQL injection?',
    async () => (await sqlCount('TRUE')) - (await queryTotal({ text: 'SQL injection' })),
  ],
  [
    'How many findings are not in the juice shop report?',
    () => sqlCount('r.filename IS DISTINCT FROM $1', [JUICE]),
  ],
  [
    'how many high findings in juice shop?',
    () => sqlCount(`f.severity = 'high' AND r.filename = $1`, [JUICE]),
  ],
  ['How many findings have no CWE?', () => sqlCount('cardinality(f.cwe) = 0')],
  ['how many findings have a CWE?', () => sqlCount('cardinality(f.cwe) > 0')],
  ['How many open findings are there?', () => sqlCount(`f.status = 'open'`)],
  ['How many findings are not fixed?', () => sqlCount(`f.latest_verdict IS DISTINCT FROM 'fixed'`)],
  [
    'How many reports have high or critical findings?',
    async () =>
      (
        await setup.db.dataSource.query(
          `SELECT count(DISTINCT report_id)::int AS n FROM findings WHERE NOT archived AND severity IN ('high', 'critical')`,
        )
      )[0].n,
  ],
  ['How many findings mention XSS or SQL injection?', null],
  ['How many findings have CWE-79 or CWE-89?', null],
  ['How many findings have more than one CWE?', null],
  ['How many findings in the last 30 days?', null],
  ['How many new findings are there?', null],
  ['How many findings are in the semgrep report?', null],
  ['How many findings are in the trivy report?', null],
  ['What percentage of findings are critical?', () => bySeverities(['critical'])],
  ['How many findings are false positives?', () => sqlCount(`f.status = 'false_positive'`)],
  ['How many findings from production?', null],
  ['How many critical findings were fixed last month?', null],
  ['how many findings in both juice shop and fortify?', null],
  ['Which report has the least findings?', null],
  ['Which report has the fewest XSS findings?', null],
  ["How many findings have a severity of 'high'?", () => bySeverities(['high'])],
  ['How many findings does juice shop have?', () => sqlCount('r.filename = $1', [JUICE])],
  ['How many findings came from the fortify scan?', () => sqlCount('r.filename = $1', [FORTIFY])],
  [
    'How many critical findings, if any, are in flawfinder?',
    () => sqlCount(`f.severity = 'critical' AND r.filename = $1`, [FLAWFINDER]),
  ],
  ['how many findings without CWE-79', () => sqlCount('NOT (79 = ANY(f.cwe))')],
  ['How many findings are in the first report?', null],
  ['How many types of vulnerabilities are there?', null],
  ['How many unique findings are there?', null],
  [
    'how many findings in every report except fortify',
    () => sqlCount('r.filename IS DISTINCT FROM $1', [FORTIFY]),
  ],
  [
    'How many XSS findings are in reports other than juice shop?',
    async () => (await queryTotal({ text: 'XSS' })) - (await queryTotal({ text: 'XSS', reportName: JUICE })),
  ],
  [
    'which CWE is most common?',
    async () =>
      (
        await setup.db.dataSource.query(
          `SELECT count(*)::int AS n FROM findings f, unnest(f.cwe) c WHERE NOT f.archived GROUP BY c ORDER BY n DESC LIMIT 1`,
        )
      )[0].n,
  ],
  [
    'How many reports have been imported?',
    async () =>
      (await setup.db.dataSource.query(`SELECT count(*)::int AS n FROM reports WHERE NOT archived`))[0].n,
  ],
  [
    "Don't count info findings, how many are there?",
    () => bySeverities(['critical', 'high', 'medium', 'low']),
  ],
  [
    "how many findings that don't include XSS",
    async () => (await sqlCount('TRUE')) - (await queryTotal({ text: 'XSS' })),
  ],
  [
    'How many issues are critical or high in the gosec report?',
    () => bySeverities(['critical', 'high'], `r.filename = 'sechub__gosec_2.9.5.sarif.json'`),
  ],
];

describe('adversarial wordings: the exact number or no number', () => {
  it.each(ADVERSARIAL)('%s', async (q, expected) => {
    const turn = await ask(q);
    if (expected) expectExact(turn, await expected());
    else expectNoNumber(turn);
  });

  it('"which report has the most high or critical findings" ranks by the sum of both severities', async () => {
    const [top] = await setup.db.dataSource.query(
      `SELECT r.filename, count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id
       WHERE NOT f.archived AND f.severity IN ('high', 'critical') GROUP BY r.filename ORDER BY n DESC LIMIT 1`,
    );
    const turn = await ask('Which report has the most high or critical findings?');
    expect(turn.outcome.content).toContain(`**${top.filename}** with **${top.n}**`);
  });
});
