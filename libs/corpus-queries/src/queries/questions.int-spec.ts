/**
 * Acceptance: importing exactly the files of shared/questions/questions.json into an empty database
 * and running the query functions with the filter each question's `why` describes reproduces every
 * expected number (and report name) there.
 */
import type { FindingFilter, Severity } from '@corpus-chat/contracts';
import {
  createQuestionsCorpusDatabase,
  loadQuestions,
  type SharedQuestion,
} from '@corpus-chat/ingest/testing';
import { type TestDatabase } from '@corpus-chat/persistence/testing';
import { corpusOverview } from './corpus-overview';
import { countFindingsBy } from './count-findings-by';
import { listReports } from './list-reports';
import { searchFindings } from './search-findings';

const { corpus, questions } = loadQuestions();
let db: TestDatabase;

beforeAll(async () => {
  // Throws when an import is refused.
  db = await createQuestionsCorpusDatabase();
}, 120_000);

afterAll(async () => {
  await db?.drop();
});

/** The filter a `why` describes: `text 'X'`, `severity=Y`, `report=Z`, `cwe contains N`. */
function filterOf(why: string): FindingFilter {
  const f: FindingFilter = {};
  const text = /text '([^']*)'/.exec(why);
  if (text) f.text = text[1];
  const severity = /severity=(\w+)/.exec(why);
  if (severity) f.severity = severity[1] as Severity;
  const report = /report=([^\s,]+)/.exec(why);
  if (report) f.reportName = report[1];
  const cwe = /cwe contains (\d+)/.exec(why);
  if (cwe) f.cwe = Number(cwe[1]);
  return f;
}

/** Checks the weakness class the `why` names was the one the query layer applied. */
function expectClass(why: string, applied: { weaknessClasses?: { name: string; cwe: number[] }[] }): void {
  const named = /names class ([^:]+): full-text match OR cwe && \{([\d,]+)\}/.exec(why);
  if (named) {
    expect(applied.weaknessClasses).toEqual([{ name: named[1], cwe: named[2].split(',').map(Number) }]);
  } else if (/full-text match, no weakness class/.test(why)) {
    expect(applied.weaknessClasses).toBeUndefined();
  }
}

/** Runs the query a question's `why` describes; returns the numbers and names of the answer. */
async function answer(q: SharedQuestion): Promise<{ numbers: number[]; names: string[] }> {
  const m = db.dataSource.manager;
  const why = q.why;

  if (/files imported, none refused, each one report/.test(why)) {
    const overview = await corpusOverview(m);
    expect((await listReports(m)).length).toBe(overview.reports.total);
    return { numbers: [overview.reports.total], names: [] };
  }

  const breakdown = /^findings by severity: (.*)$/.exec(why);
  if (breakdown) {
    const result = await countFindingsBy(m, { groupBy: 'severity' });
    const counts = Object.fromEntries(result.groups.map((g) => [g.key, g.count]));
    const expected = [...breakdown[1].matchAll(/(\w+) (\d+)/g)].map(
      ([, sev, n]) => [sev, Number(n)] as const,
    );
    for (const [sev, n] of expected) expect(counts[sev]).toBe(n);
    return { numbers: expected.map(([sev]) => counts[sev]), names: [] };
  }

  const perReport = /^findings per report with (.*?), most first: (.*?); next (.*) (\d+)$/.exec(why);
  if (perReport) {
    const filter = perReport[1] === 'no filter' ? {} : filterOf(perReport[1]);
    const result = await countFindingsBy(m, { groupBy: 'report', filter });
    const top = [...perReport[2].matchAll(/(\S+) (\d+)/g)].map(([, name, n]) => ({ name, n: Number(n) }));
    top.forEach((t, i) => {
      expect(result.groups[i].label).toBe(t.name);
      expect(result.groups[i].count).toBe(t.n);
    });
    expect(result.groups[top.length].label).toBe(perReport[3]);
    expect(result.groups[top.length].count).toBe(Number(perReport[4]));
    const shown = result.groups.slice(0, top.length);
    return { numbers: shown.map((g) => g.count), names: shown.map((g) => g.label) };
  }

  const verdict = /no finding has verdict (\w+)/.exec(why);
  if (verdict) {
    const result = await searchFindings(m, { verdict: verdict[1] as FindingFilter['verdict'], limit: 0 });
    const groups = await countFindingsBy(m, { groupBy: 'verdict' });
    expect(groups.groups.find((g) => g.key === verdict[1])?.count).toBe(result.total);
    return { numbers: [result.total], names: [] };
  }

  const count = /^count of findings with (.*) = (\d+)$/.exec(why);
  if (count) {
    const filter = count[1] === 'no filter' ? {} : filterOf(count[1]);
    const result = await searchFindings(m, { ...filter, limit: 50 });
    expectClass(why, result.filter);
    expect(result.total).toBe(Number(count[2]));
    expect(result.rows.length).toBe(Math.min(50, result.total));
    // countFindingsBy agrees with searchFindings on the same filter.
    expect((await countFindingsBy(m, { groupBy: 'severity', filter })).total).toBe(result.total);
    return { numbers: [result.total], names: [] };
  }
  throw new Error(`${q.id}: no rule in this test reads the why "${why}"`);
}

const answerable = questions.filter((q) => !q.expect.noNumbers);

test('the question set is the one this test was written for', () => {
  expect(corpus.files).toHaveLength(41);
  expect(answerable.length).toBeGreaterThanOrEqual(37);
});

test.each(answerable.map((q) => [q.id, q] as const))('%s reproduces its expected answer', async (_id, q) => {
  const got = await answer(q);
  for (const n of q.expect.numbers ?? []) expect(got.numbers).toContain(n);
  for (const name of q.expect.names ?? []) expect(got.names).toContain(name);
});
