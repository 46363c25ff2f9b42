/**
 * The built-in planner counts by triage status on real imported findings whose statuses the test
 * sets through `setFindingStatus`, and keeps "fixed" on the retest verdict. Expected numbers come
 * from SQL over the rows, never typed by hand.
 */
import 'reflect-metadata';
import {
  CorpusTools,
  defaultCorpusQueries,
  defaultReadOnly,
  setFindingStatus,
} from '@corpus-chat/corpus-queries';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';
import { TRIAGE_STATUSES, type TriageStatus } from '@corpus-chat/contracts';
import { TestThread, expectNumbers, type CapturedTurn } from '../testing/turn-harness';
import { PlannerRunner } from './planner-runner';

const JUICE = 'scb__juice-shop-v12.10.2.json';
const actor = { id: '00000000-0000-4000-8000-000000000001', username: 'alice' };
let db: TestDatabase;
let planner: PlannerRunner;

const ids = async (where: string, limit: number): Promise<number[]> =>
  (
    await db.dataSource.query(
      `SELECT f.id FROM findings f JOIN reports r ON r.id = f.report_id WHERE ${where} ORDER BY f.id LIMIT ${limit}`,
    )
  ).map((r: { id: number }) => r.id);
const count = async (where: string, params: unknown[] = []): Promise<number> =>
  (
    await db.dataSource.query(
      `SELECT count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id WHERE NOT r.archived AND ${where}`,
      params,
    )
  )[0].n;
async function mark(findingIds: number[], status: TriageStatus): Promise<void> {
  expect(findingIds.length).toBeGreaterThan(0);
  const result = await setFindingStatus(db.dataSource.manager, {
    ids: findingIds,
    status,
    reason: 'set by the planner status test',
    actor,
  });
  expect(result).toEqual({ status: 'ok', changed: findingIds });
}

beforeAll(async () => {
  db = await createTestDatabase();
  const outcomes = await importCorpusFiles(db.dataSource, [
    `scans/trivy/${JUICE}`,
    'scans/zap/dd__zap-results-first-scan.xml',
  ]);
  if (outcomes.some((o) => !o.ok)) throw new Error(`imports failed: ${JSON.stringify(outcomes)}`);
  planner = new PlannerRunner(new CorpusTools(db.dataSource, defaultCorpusQueries, defaultReadOnly));
  const juice = `r.filename = '${JUICE}'`;
  await mark(await ids(`${juice} AND f.severity = 'critical'`, 3), 'confirmed');
  await mark(await ids(`${juice} AND f.severity = 'high'`, 2), 'confirmed');
  await mark(await ids(`${juice} AND f.severity = 'medium'`, 4), 'false_positive');
  await mark(await ids(`${juice} AND f.severity = 'low'`, 2), 'risk_accepted');
  await mark(await ids(`r.filename <> '${JUICE}'`, 3), 'risk_accepted');
  await mark(await ids(`r.filename <> '${JUICE}' AND f.status = 'open'`, 1), 'fixed');
}, 120_000);
afterAll(async () => db?.drop(), 60_000);

const ask = (message: string): Promise<CapturedTurn> => new TestThread(planner).ask(message);

describe('built-in planner: triage status', () => {
  it.each([
    ['how many findings are false positives?', `f.status = 'false_positive'`, 'triage status false positive'],
    [
      'how many confirmed criticals?',
      `f.status = 'confirmed' AND f.severity = 'critical'`,
      'triage status confirmed',
    ],
    [
      'how many findings were marked risk accepted in the juice shop report?',
      `f.status = 'risk_accepted' AND r.filename = '${JUICE}'`,
      'triage status risk accepted',
    ],
    ['how many open findings', `f.status = 'open'`, 'triage status open'],
    ['how many findings have triage status fixed?', `f.status = 'fixed'`, 'triage status fixed'],
  ])('%s', async (question, where, words) => {
    const expected = await count(where);
    expect(expected).toBeGreaterThan(0);
    const turn = await ask(question);
    expectNumbers(turn, [expected]);
    expect(turn.outcome.content).toContain(words);
  });

  it('"breakdown by triage status" lists every status with its count', async () => {
    const turn = await ask('breakdown by triage status');
    for (const status of TRIAGE_STATUSES) {
      expect(turn.outcome.content).toContain(
        `- ${status.replace('_', ' ')}: ${await count(`f.status = $1`, [status])}\n`,
      );
    }
    expect(turn.events.find((e) => e.type === 'tool.call')).toMatchObject({
      name: 'count_findings_by',
      args: { groupBy: 'status' },
    });
  });

  it('"fixed" alone is the retest verdict, and the answer says so', async () => {
    const turn = await ask('How many findings are fixed?');
    expect(turn.outcome.content).toContain('verdict fixed');
    expect(turn.outcome.content).not.toContain('triage status');
    expect(turn.events.find((e) => e.type === 'tool.call')).toMatchObject({ args: { verdict: 'fixed' } });
  });
});
