/**
 * The planner never answers a different question: report references that match no report, partial
 * names, formats, scanners, shares, title and CWE rankings and report-scoped follow-ups, through the
 * real chat path on the questions.json corpus. Expected numbers come from the shared question files
 * or from SQL written here over the imported rows, never typed by hand.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { setReportArchived } from '@corpus-chat/corpus-queries';
import { loadQuestions, sharedDir, type SharedQuestion } from '@corpus-chat/ingest/testing';
import { type TestDatabase } from '@corpus-chat/persistence/testing';
import { plannerOnQuestionsCorpus } from '../testing/questions-corpus-planner';
import { scoreAnswer } from '../../eval/answer-score';
import { TestThread, type CapturedTurn } from '../testing/turn-harness';
import type { PlannerRunner } from './planner-runner';

const { questions } = loadQuestions();
const r2: SharedQuestion[] = JSON.parse(
  fs.readFileSync(path.join(sharedDir(), 'questions', 'questions-r2.json'), 'utf8'),
).questions;
const q = (id: string) => [...questions, ...r2].find((x) => x.id === id)!;
let db: TestDatabase;
let planner: PlannerRunner;

beforeAll(async () => {
  ({ db, planner } = await plannerOnQuestionsCorpus());
}, 180_000);
afterAll(async () => db?.drop(), 60_000);

async function ask(turns: string[]): Promise<CapturedTurn> {
  const thread = new TestThread(planner);
  let last: CapturedTurn | undefined;
  for (const t of turns) last = await thread.ask(t);
  return last!;
}
const sql = async (query: string, params: unknown[] = []): Promise<Record<string, unknown>[]> =>
  db.dataSource.query(query, params);
const countWhere = async (where: string, params: unknown[] = []) =>
  Number(
    (
      await sql(
        `SELECT count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id WHERE NOT r.archived AND ${where}`,
        params,
      )
    )[0]['n'],
  );

function expectExact(expected: SharedQuestion['expect'], turn: CapturedTurn): void {
  const score = scoreAnswer(expected, turn.outcome.content);
  expect({ ...score, text: turn.outcome.content }).toMatchObject({ exact: true, text: turn.outcome.content });
}

describe('round-2 questions that need only the round-1 files', () => {
  it('r19: "it" after "which report has the most critical findings" is that report', async () => {
    const turn = await ask(q('r19').turns);
    expectExact(q('r19').expect, turn);
    expect(turn.events.find((e) => e.type === 'tool.call')).toMatchObject({
      args: { severity: 'high', reportName: q('q26').expect.names![0] },
    });
  });

  it('r24: a report no file name matches gets no number, not the corpus count', async () => {
    const turn = await ask(q('r24').turns);
    expectExact(q('r24').expect, turn);
    expect(turn.outcome.content).toMatch(/checkmarx/i);
  });

  it('r21: a percentage states the part and the whole (round-1 counts of q03 and q02)', async () => {
    const turn = await ask(q('r21').turns);
    expectExact({ numbers: [q('q03').expect.numbers![0], q('q02').expect.numbers![0]] }, turn);
    // The percentage stands beside its two counts, so the number check supports it.
    expect(turn.outcome.metadata.verification?.unsupported).toEqual([]);
  });

  it('r25 shape: "which of those reports has the most?" ranks only the previous format', async () => {
    const [top, next] = await sql(
      `SELECT r.filename, count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id WHERE NOT r.archived AND r.format = 'trivy' GROUP BY r.filename ORDER BY n DESC LIMIT 2`,
    );
    expect(top['n']).toBeGreaterThan(next['n'] as number);
    const turn = await ask([
      'How many findings are in the Trivy reports?',
      'Which of those reports has the most?',
    ]);
    expectExact({ numbers: [top['n'] as number], names: [top['filename'] as string] }, turn);
    expect(turn.events.find((e) => e.type === 'tool.call')).toMatchObject({
      name: 'count_findings_by',
      args: { groupBy: 'report', filter: { format: 'trivy' } },
    });
  });
});

describe("the issue's questions", () => {
  it('"the coverity report" is not read as "severity": no report matches, no corpus-wide count', async () => {
    const turn = await ask(['how many medium findings in the coverity report?']);
    expect(turn.outcome.content).toMatch(/coverity/);
    expect(turn.outcome.content).not.toMatch(/\d/);
  });

  it('a unique partial name applies that report and names it', async () => {
    const turn = await ask(['crits in juice shop?']);
    expectExact({ numbers: q('q24').expect.numbers, names: ['scb__juice-shop-v12.10.2.json'] }, turn);
  });

  it('"and how many of those are high?" after a ranking stays in the top report', async () => {
    const turn = await ask([
      'which report has the most critical findings?',
      'and how many of those are high?',
    ]);
    expectExact(q('r19').expect, turn);
    expect(turn.outcome.content).toContain(q('q26').expect.names![0]);
  });

  it('an ambiguous partial name lists the candidates without a number', async () => {
    const turn = await ask(['how many findings in the itsecgames report?']);
    for (const f of [
      'bcgov-pipeline-templates__zap-2.11.0-itsecgames.json',
      'bcgov-pipeline-templates__zap-2.12.0-itsecgames.json',
    ])
      expect(turn.outcome.content).toContain(f);
  });

  it('a format is a filter on the detected format, a scanner on the scanner name', async () => {
    const trivy = await ask(['how many high findings in the trivy reports?']);
    expectExact({ numbers: [await countWhere(`r.format = 'trivy' AND f.severity = 'high'`)] }, trivy);
    expect(trivy.outcome.content).toMatch(/format trivy/);
    const semgrep = await ask(['how many findings from semgrep?']);
    expectExact(
      { numbers: [await countWhere(`strpos(lower(r.doc_metadata->'tool'->>'name'), 'semgrep') > 0`)] },
      semgrep,
    );
    expect(semgrep.outcome.content).toMatch(/scanner 'semgrep'/);
  });

  it('"the most common vulnerability" is the exact title most findings share; "the most common CWE" counts each id', async () => {
    const [title, next] =
      await sql(`SELECT v.title, count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id JOIN finding_versions v ON v.id = f.current_version_id
      WHERE NOT r.archived AND r.format = 'zap' GROUP BY v.title ORDER BY n DESC LIMIT 2`);
    expect(title['n']).toBeGreaterThan(next['n'] as number); // no tie at the top
    expectExact(
      { numbers: [title['n'] as number], names: [title['title'] as string] },
      await ask(['what is the most common vulnerability in the ZAP scans?']),
    );
    const [cwe] = await sql(
      `SELECT c AS cwe, count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id, unnest(f.cwe) c WHERE NOT r.archived GROUP BY c ORDER BY n DESC LIMIT 1`,
    );
    expectExact({ numbers: [cwe['cwe'] as number, cwe['n'] as number] }, await ask(['most common CWE?']));
  });

  it('a possessive and a count without a verb are read, not declined', async () => {
    expectExact(q('q28').expect, await ask(["which scan's got the most highs"]));
    expectExact({ numbers: [q('q20').expect.numbers![0]] }, await ask(['crit sqli count']));
  });

  it('"show the second one" after a ranking opens the second report listed, within the ranking\'s filter', async () => {
    const thread = new TestThread(planner);
    await thread.ask(q('q29').turns[0]);
    const second = await thread.ask('show the second one');
    expect(second.events.find((e) => e.type === 'tool.call')).toMatchObject({
      name: 'search_findings',
      args: { reportName: q('q29').expect.names![1] },
    });
    expectExact({ numbers: [q('q29').expect.numbers![1]], names: [q('q29').expect.names![1]] }, second);
    const byHigh = new TestThread(planner);
    await byHigh.ask(q('q30').turns[0]);
    const last = await byHigh.ask('the last one');
    expect(last.events.find((e) => e.type === 'tool.call')).toMatchObject({
      args: { severity: 'high', reportName: q('q30').expect.names![3] },
    });
    expectExact({ numbers: [q('q30').expect.numbers![3]] }, last);
  });

  it('a format ranking names the format and its count', async () => {
    const [top] = await sql(
      `SELECT r.format, count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id WHERE NOT r.archived AND f.severity = 'low' GROUP BY r.format ORDER BY n DESC LIMIT 1`,
    );
    expectExact(
      { numbers: [top['n'] as number], names: [top['format'] as string] },
      await ask(['Which report format has the most low severity findings?']),
    );
  });
});

describe('archived reports', () => {
  it('are counted only when asked for, and the answer says so', async () => {
    const [juice] = await sql(`SELECT id FROM reports WHERE filename = 'scb__juice-shop-v12.10.2.json'`);
    await setReportArchived(db.dataSource.manager, juice['id'] as number, true);
    try {
      const live = await ask(['How many critical findings are there?']);
      expectExact({ numbers: [await countWhere(`f.severity = 'critical'`)] }, live);
      const all = await ask(['How many critical findings are there, including archived reports?']);
      expectExact({ numbers: q('q03').expect.numbers }, all);
      expect(all.outcome.content).toMatch(/archived reports included/);
      expect(all.events.find((e) => e.type === 'tool.call')).toMatchObject({
        args: { severity: 'critical', includeArchived: true },
      });
      const reports = await ask(['how many archived reports are there?']);
      expect(reports.outcome.content).not.toMatch(/\d/);
    } finally {
      await setReportArchived(db.dataSource.manager, juice['id'] as number, false);
    }
  });
});
