/**
 * A generated suite of operators' wordings (issue 34): shares over every scope kind, counts with
 * abbreviations, free-text terms and typos, compound messages, and follow-ups after each answer
 * kind, on the questions.json corpus imported with the real importer. Every number an answer states
 * in bold must be one computed here by SQL over the imported rows (text searches: the query
 * layer's exact total, which owns what a topic matches), and a stated percentage must be the one
 * those counts give. Declining is allowed; the answered share is printed. The full set runs with
 * FUZZ_FULL=1; by default a seeded sample keeps the run short.
 */
import 'reflect-metadata';
import type { FindingFilter } from '@corpus-chat/contracts';
import { searchFindings } from '@corpus-chat/corpus-queries';
import fs from 'node:fs';
import path from 'node:path';
import { mulberry32, sharedDir } from '@corpus-chat/ingest/testing';
import { usePlannerOnQuestionsCorpus } from '../testing/questions-corpus-planner';
import { TestThread, askInThread } from '../testing/turn-harness';

const setup = usePlannerOnQuestionsCorpus();
const SAMPLE = 150;

/** Where findings are: a phrase naming them and the SQL that selects them. */
interface Where {
  words: string;
  sql: string;
}
const FORMATS: Where[] = ['zap', 'trivy', 'nuclei', 'sarif'].map((f) => ({
  words: f,
  sql: `r.format = '${f}'`,
}));
const REPORTS: Where[] = [
  { words: 'the flawfinder report', sql: `r.filename = 'dd__flawfinder.sarif'` },
  { words: 'the juice shop scan', sql: `r.filename = 'scb__juice-shop-v12.10.2.json'` },
  { words: 'dd__cppcheck_many_vuln.sarif', sql: `r.filename = 'dd__cppcheck_many_vuln.sarif'` },
  // A partial name run together with format words ("the cppcheck sarif") names one file.
  { words: 'the cppcheck sarif', sql: `r.filename = 'dd__cppcheck_many_vuln.sarif'` },
  { words: 'the gitleaks sarif file', sql: `r.filename = 'dd__gitleaks_7.5.0.sarif'` },
];
const SEVERITY: Record<string, string[]> = {
  critical: ['critical', 'crit', 'criticals', 'critcal'],
  high: ['high', 'highs', 'high-severity', 'hihg'],
  medium: ['medium', 'med', 'moderate', 'meduim'],
  low: ['low', 'lows', 'low-severity'],
  info: ['informational', 'info'],
};
const ABBREVIATIONS = ['sqli', 'xss', 'rce', 'ssrf', 'xxe', 'lfi', 'idor', 'csrf', 'SQLi', 'XSS'];
const RUSSIAN_SEVERITIES = [
  ['critical', 'критических', 'критическую'],
  ['high', 'высоких', 'высокую'],
  ['medium', 'средних', 'среднюю'],
  ['low', 'низких', 'низкую'],
];
const RUSSIAN_CLASSES = [
  ['sql-инъекций', 'sqli'],
  ['межсайтового скриптинга', 'xss'],
  ['с подделкой межсайтовых запросов', 'csrf'],
  ['про обход каталогов', 'path traversal'],
  ['про внешние сущности xml', 'xxe'],
];
const FREE_TEXT = ['log4j', 'openssl', 'jquery', 'glibc', 'CVE-2021-44228'];

/** A generated case: the messages of one thread, and every number its last answer may state. */
interface Case {
  turns: string[];
  /** Numbers a correct answer states; the first is the headline a real answer must contain. */
  /** `earlier`: the thread's earlier answers (which finding "the first one" showed). */
  expected: (earlier: string[]) => Promise<number[]>;
  /** A share: the percentage of expected[0] over expected[1] must be the one stated. */
  share?: boolean;
  /** The answer must name this (a report's file name). */
  name?: () => Promise<string>;
}

async function sql(where: string): Promise<number> {
  const [{ n }] = await setup.db.dataSource.query(
    `SELECT count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id
     WHERE NOT f.archived AND NOT r.archived AND (${where})`,
  );
  return n;
}
const sev = (s: string) => `f.severity = '${s}'`;
const and = (...w: string[]) => w.join(' AND ');
async function topReport(where: string): Promise<{ filename: string; n: number }> {
  const [top]: { filename: string; n: number }[] = await setup.db.dataSource.query(
    `SELECT r.filename, count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id
     WHERE NOT f.archived AND NOT r.archived AND (${where}) GROUP BY r.filename ORDER BY n DESC, r.filename LIMIT 1`,
  );
  return top;
}
async function textTotal(text: string, filter: FindingFilter = {}): Promise<number> {
  return (await searchFindings(setup.db.dataSource.manager, { ...filter, text, limit: 1 })).total;
}

function cases(): Case[] {
  const out: Case[] = [];
  const scopes = [...FORMATS, ...REPORTS];
  for (const [s, words] of Object.entries(SEVERITY)) {
    for (const p of words) {
      for (const f of FORMATS) {
        const fr = f.words;
        const both = () => Promise.all([sql(and(f.sql, sev(s))), sql(f.sql)]);
        for (const q of [
          `what percentage of ${p} issues are in the ${fr} reports?`,
          `what % of the findings in the ${fr} reports are ${p}?`,
          `What share of the ${fr} findings are ${p}?`,
          `how much of the ${fr} findings is ${p}?`,
          `what proportion of ${fr} vulns are ${p}?`,
          `what part of the findings in the ${fr} scans are ${p}?`,
          `percentage of ${p} in the ${fr} reports`,
        ])
          out.push({ turns: [q], expected: both, share: true });
        out.push(
          {
            turns: [`how many ${p} findings are in the ${fr} reports?`],
            expected: async () => [await sql(and(f.sql, sev(s)))],
          },
          { turns: [`${p} in the ${fr} scans?`], expected: async () => [await sql(and(f.sql, sev(s)))] },
          {
            turns: [`How many findings are in the ${fr} reports? And how many of them are ${p}?`],
            expected: async () => [await sql(f.sql), await sql(and(f.sql, sev(s)))],
          },
          {
            turns: [`how many findings are in the ${fr} reports?`, `and of those, how many are ${p}?`],
            expected: async () => [await sql(and(f.sql, sev(s)))],
          },
          {
            turns: [`breakdown of the ${fr} findings by severity`, `how many of them are ${p}?`],
            expected: async () => [await sql(and(f.sql, sev(s)))],
          },
          {
            // After a finding picked from a list: its report, within the list's filter.
            turns: [
              `list the ${p} findings in the ${fr} reports`,
              'show the first one',
              'how many findings does that report have?',
            ],
            expected: async (earlier) => {
              const id = /Finding #(\d+)/.exec(earlier[1] ?? '')?.[1];
              return id
                ? [
                    await sql(
                      and(f.sql, sev(s), `r.id = (SELECT report_id FROM findings WHERE id = ${Number(id)})`),
                    ),
                  ]
                : [];
            },
          },
          {
            turns: [`list the ${fr} findings`, `how many of them are ${p}?`],
            expected: async () => [await sql(and(f.sql, sev(s)))],
          },
          {
            // The asked property is the severity; the reports named scope the whole.
            turns: [`what share of the ${p} findings are in the ${fr} reports?`],
            expected: both,
            share: true,
          },
          {
            turns: [`waht % of teh findings in the ${fr} reports are ${p}?`],
            expected: both,
            share: true,
          },
          {
            // Status and format both scope the whole; the severity is the part.
            turns: [`what percentage of the open findings in the ${fr} reports are ${p}?`],
            expected: () =>
              Promise.all([
                sql(and(f.sql, sev(s), `f.status = 'open'`)),
                sql(and(f.sql, `f.status = 'open'`)),
              ]),
            share: true,
          },
          {
            turns: [`what % of the ${p} ${fr} findings mention xss?`],
            expected: async () => {
              const filter = {
                format: fr as FindingFilter['format'],
                severity: s as FindingFilter['severity'],
              };
              return [await textTotal('xss', filter), await sql(and(f.sql, sev(s)))];
            },
            share: true,
          },
          {
            turns: [`How many ${p} findings are in the ${fr} reports? Which report has the most of them?`],
            expected: async () => [
              await sql(and(f.sql, sev(s))),
              (await topReport(and(f.sql, sev(s))))?.n ?? 0,
            ],
          },
        );
      }
      for (const r of REPORTS) {
        out.push(
          {
            turns: [`what % of the findings in ${r.words} are ${p}?`],
            expected: () => Promise.all([sql(and(r.sql, sev(s))), sql(r.sql)]),
            share: true,
          },
          {
            turns: [`how many ${p} findings in ${r.words}?`],
            expected: async () => [await sql(and(r.sql, sev(s)))],
          },
        );
      }
      out.push(
        {
          turns: [`what % of findings are ${p}?`],
          expected: () => Promise.all([sql(sev(s)), sql('TRUE')]),
          share: true,
        },
        {
          turns: ['how many findings are there in total?', `and of those, how many are ${p}?`],
          expected: async () => [await sql(sev(s))],
        },
        {
          turns: [`which report has the most ${p} findings?`, 'show the first one'],
          expected: async () => [(await topReport(sev(s))).n],
        },
        {
          turns: ['list the reports', `which of them has the most ${p}?`],
          expected: async () => [(await topReport(sev(s))).n],
          name: async () => (await topReport(sev(s))).filename,
        },
        {
          // A follow-up keeps the ranking's filter: the top report's findings of that severity.
          turns: [`which report has the most ${p} findings?`, 'how many findings does it have?'],
          expected: async () => [
            await sql(and(sev(s), `r.filename = '${(await topReport(sev(s))).filename}'`)),
          ],
        },
      );
    }
  }
  // Shares asked in Russian: the reports named scope the whole, the severity is the part.
  for (const [s, adjective, accusative] of RUSSIAN_SEVERITIES)
    for (const f of FORMATS) {
      const both = () => Promise.all([sql(and(f.sql, sev(s))), sql(f.sql)]);
      out.push(
        {
          turns: [`какой процент находок в отчётах ${f.words} имеют ${accusative} серьёзность?`],
          expected: both,
          share: true,
        },
        { turns: [`какая доля ${adjective} находок в отчётах ${f.words}?`], expected: both, share: true },
      );
    }
  // Weakness classes in Russian and in full: the same class as the abbreviation, so the same total.
  for (const [words, a] of RUSSIAN_CLASSES)
    for (const f of [undefined, ...FORMATS]) {
      const format = f?.words as FindingFilter['format'];
      out.push(
        {
          turns: [`сколько находок ${words}${f ? ` в отчётах ${f.words}` : ''}?`],
          expected: async () => [await textTotal(a, format ? { format } : {})],
        },
        {
          turns: [`how many findings${f ? ` in the ${f.words} reports` : ''} are ${a}?`],
          expected: async () => [await textTotal(a, format ? { format } : {})],
        },
      );
    }
  for (const a of [...ABBREVIATIONS, ...FREE_TEXT]) {
    out.push(
      { turns: [`how many ${a} findings are there?`], expected: async () => [await textTotal(a)] },
      { turns: [`${a}?`], expected: async () => [await textTotal(a)] },
      { turns: [`how many findings mention ${a}`], expected: async () => [await textTotal(a)] },
    );
    for (const f of FORMATS)
      out.push(
        {
          turns: [`how many ${a} issues in the ${f.words} reports?`],
          expected: async () => [await textTotal(a, { format: f.words as FindingFilter['format'] })],
        },
        {
          turns: [`how many findings are in the ${f.words} reports?`, `and how many of them are ${a}?`],
          expected: async () => [await textTotal(a, { format: f.words as FindingFilter['format'] })],
        },
      );
    for (const s of scopes.slice(0, 2))
      out.push({
        turns: [`how many ${a} findings are in the ${s.words} reports? and how many are high?`],
        // The second question narrows the first ("and how many are high" of those).
        expected: async () => {
          const format = s.words as FindingFilter['format'];
          return [await textTotal(a, { format }), await textTotal(a, { format, severity: 'high' })];
        },
      });
  }
  return out;
}

const ALL = cases();
const picked = process.env.FUZZ_FULL
  ? ALL
  : (() => {
      const rand = mulberry32(34);
      return ALL.map((c) => ({ c, k: rand() }))
        .sort((a, b) => a.k - b.k)
        .slice(0, SAMPLE)
        .map(({ c }) => c);
    })();

/** The numbers an answer states as counts (bold). */
const boldNumbers = (text: string) =>
  [...text.matchAll(/\*\*(\d[\d,]*)\*\*/g)].map((m) => Number(m[1].replace(/,/g, '')));

it(`generates at least 1,000 wordings (${ALL.length})`, () => {
  expect(ALL.length).toBeGreaterThanOrEqual(1000);
});

it(`states no wrong number on ${picked.length} generated wordings`, async () => {
  const wrong: string[] = [];
  let answered = 0;
  const declined: string[] = [];
  for (const c of picked) {
    const thread = new TestThread(setup.planner);
    const earlier: string[] = [];
    for (const t of c.turns.slice(0, -1)) earlier.push((await thread.ask(t)).outcome.content);
    const { outcome } = await thread.ask(c.turns.at(-1)!);
    const text = outcome.content;
    const expected = await c.expected(earlier);
    const stated = boldNumbers(text);
    const bad = stated.filter((n) => !expected.includes(n));
    if (c.share && stated.length) {
      const pct = /\((\d+\.\d)%\)/.exec(text)?.[1];
      const want = expected[1] ? ((100 * expected[0]) / expected[1]).toFixed(1) : undefined;
      if (pct !== want || stated[0] !== expected[0] || stated[1] !== expected[1]) bad.push(-1);
    }
    const name = c.name && stated.length ? await c.name() : undefined;
    if (name && !text.includes(name)) bad.push(-2);
    if (bad.length) wrong.push(`${c.turns.join(' ⏎ ')}\n  expected ${expected} got ${text}`);
    else if (expected.length && expected.every((n) => stated.includes(n))) answered += 1;
    else declined.push(c.turns.join(' ⏎ '));
  }
  console.log(
    `generated suite: ${answered}/${picked.length} answered exactly, ${wrong.length} wrong; not answered:\n${declined.join('\n')}`,
  );
  expect(wrong).toEqual([]);
}, 600_000);

describe('issue 34 wordings', () => {
  it('says that a term the vocabulary does not know was searched as text', async () => {
    const { outcome } = await askInThread(setup.planner, [
      'how many findings are in the trivy reports?',
      'and how many of them are openssl?',
    ]);
    expect(outcome.content).toContain("searched the findings' text for 'openssl'");
    expect(boldNumbers(outcome.content)).toEqual([await textTotal('openssl', { format: 'trivy' })]);
  });

  it('answers each question of a message; one it cannot answer is declined on its own', async () => {
    const { outcome } = await askInThread(setup.planner, [
      'How many findings are in the zap reports? What is the weather in Paris? And how many of them are high?',
    ]);
    const [zap, , high] = outcome.content.split(/^> /m).slice(1);
    expect(boldNumbers(zap)).toEqual([await sql(`r.format = 'zap'`)]);
    expect(boldNumbers(high)).toEqual([await sql(and(`r.format = 'zap'`, sev('high')))]);
    expect(outcome.content).toMatch(/weather in Paris\?\n\n[^>]*(can't|can only|cannot)/);
  });

  // The shared weakness-classes.json is the source of truth for what an abbreviation names.
  const classes: { aliases: string[]; cwe: number[] }[] = JSON.parse(
    fs.readFileSync(path.join(sharedDir(), 'corpus', 'weakness-classes.json'), 'utf8'),
  ).classes;
  it.each(['sqli', 'xss', 'rce', 'ssrf', 'xxe', 'idor', 'csrf'])(
    '%s is its weakness class: the answer names the CWE ids it matched',
    async (a) => {
      const { outcome } = await askInThread(setup.planner, [
        `how many ${a} findings are in the zap reports?`,
      ]);
      const cls = classes.find((c) => c.aliases.includes(a))!;
      for (const id of cls.cwe) expect(outcome.content).toContain(`CWE-${id}`);
      expect(boldNumbers(outcome.content)).toEqual([await textTotal(a, { format: 'zap' })]);
    },
  );

  it('ranks among the listed reports, with the name and its count', async () => {
    const { outcome } = await askInThread(setup.planner, [
      'list the reports',
      'Which of them has the most highs?',
    ]);
    const top = await topReport(sev('high'));
    expect(outcome.content).toContain(top.filename);
    expect(boldNumbers(outcome.content)).toContain(top.n);
  });
});
