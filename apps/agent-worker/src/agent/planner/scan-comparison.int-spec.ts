/**
 * Acceptance: the built-in planner answers the scan comparison questions r16, r17 and r18 of
 * shared/questions/questions-r2.json with exactly their numbers and names, through the
 * `compare_reports` tool, on the four itsecgames ZAP scans imported with the real importer.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles, sharedDir, type SharedQuestion } from '@corpus-chat/ingest/testing';
import { scoreAnswer } from '../../eval/answer-score';
import { CorpusTools, defaultCorpusQueries, defaultReadOnly } from '@corpus-chat/corpus-queries';
import { TestThread, type CapturedTurn } from '../testing/turn-harness';
import { PlannerRunner } from './planner-runner';

const V211 = 'bcgov-pipeline-templates__zap-2.11.0-itsecgames.json';
const V212 = 'bcgov-pipeline-templates__zap-2.12.0-itsecgames.json';
const V214 = 'bcgov-pipeline-templates__zap-2.14.0-itsecgames.json';
const OTHER = 'dd__zap-results-first-scan.xml';

const questions: SharedQuestion[] = JSON.parse(
  fs.readFileSync(path.join(sharedDir(), 'questions', 'questions-r2.json'), 'utf8'),
).questions;
let db: TestDatabase;
let planner: PlannerRunner;

beforeAll(async () => {
  db = await createTestDatabase();
  const outcomes = await importCorpusFiles(db.dataSource, [
    `scans/zap/${V211}`,
    `scans/zap/${V212}`,
    `scans/zap/${V214}`,
    'edge/zap__bcgov-pin-mgmt-be__zap-2.14.0-itsecgames-rescan.json',
    `scans/zap/${OTHER}`,
  ]);
  if (outcomes.some((o) => !o.ok)) throw new Error(`imports failed: ${JSON.stringify(outcomes)}`);
  planner = new PlannerRunner(new CorpusTools(db.dataSource, defaultCorpusQueries, defaultReadOnly));
}, 120_000);
afterAll(async () => db?.drop(), 60_000);

const ask = (message: string): Promise<CapturedTurn> => new TestThread(planner).ask(message);
const toolCalls = (turn: CapturedTurn) =>
  turn.events.filter((e) => e.type === 'tool.call') as { name: string; args: unknown }[];

describe('built-in planner: scan comparison', () => {
  it.each(['r16', 'r17', 'r18'])('%s', async (id) => {
    const q = questions.find((x) => x.id === id)!;
    const turn = await ask(q.turns[0]);
    const text = turn.outcome.content;
    const { missingNumbers, missingNames } = scoreAnswer(q.expect, text);
    expect({ missingNumbers, missingNames, text }).toEqual({ missingNumbers: [], missingNames: [], text });
    expect(toolCalls(turn).map((c) => c.name)).toEqual(['compare_reports']);
    expect(turn.outcome.metadata.verification?.unsupported).toEqual([]);
  });

  it('r16 reads the question’s order: the report named after "compared with" is the baseline', async () => {
    const turn = await ask(questions.find((x) => x.id === 'r16')!.turns[0]);
    expect(toolCalls(turn)[0].args).toEqual({ baseline: V212, report: V214, ordered: true });
  });

  it('"what\'s new since X?" compares X with the latest scan of its target', async () => {
    const turn = await ask(`what's new since ${V211}?`);
    expect(toolCalls(turn)[0].args).toEqual({ baseline: V211, ordered: true });
    expect(turn.outcome.content).toContain(`4 findings are new in **${V214}**`);
  });

  it('two scans named without an order: the earlier recorded scan is the baseline, and the answer says so', async () => {
    const turn = await ask(`Compare ${V214} and ${V211}`);
    expect(toolCalls(turn)[0].args).toMatchObject({ ordered: false });
    expect(turn.outcome.content).toContain(`Baseline **${V211}**`);
    expect(turn.outcome.content).toContain('earlier recorded scan time');
  });

  it('scans of different targets are not compared; the answer names both targets', async () => {
    const turn = await ask(`What is new in ${OTHER} compared with ${V211}?`);
    expect(turn.outcome.content).toMatch(/^I did not compare them/);
    expect(turn.outcome.content).toContain('http://www.itsecgames.com');
    expect(turn.outcome.content).toContain('http://bodgeit.securecodebox-demo.svc:8080');
    expect(turn.outcome.content).not.toMatch(/findings are new/);
  });
});
