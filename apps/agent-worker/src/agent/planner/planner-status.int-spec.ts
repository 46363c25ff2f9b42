/**
 * The built-in planner on corpora a test writes: triage status, edited findings and scan
 * comparisons, one block per area, each on a database of its own. One file, so the planner's
 * modules load once.
 */

import 'reflect-metadata';
import {
  CorpusTools,
  defaultCorpusQueries,
  defaultReadOnly,
  editFinding,
  setFindingStatus,
} from '@corpus-chat/corpus-queries';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles, sharedDir, type SharedQuestion } from '@corpus-chat/ingest/testing';
import { TRIAGE_STATUSES, type TriageStatus } from '@corpus-chat/contracts';
import { type CapturedTurn, expectNumbers, TestThread } from '../testing/turn-harness';
import { PlannerRunner } from './planner-runner';
import { parseQuestion } from './question-parser';
import fs from 'node:fs';
import path from 'node:path';
import { scoreAnswer } from '../../eval/answer-score';

/**
 * The built-in planner counts by triage status on real imported findings whose statuses the test
 * sets through `setFindingStatus`, and keeps "fixed" on the retest verdict. Expected numbers come
 * from SQL over the rows, never typed by hand.
 */
describe('triage status', () => {
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
      [
        'how many findings are false positives?',
        `f.status = 'false_positive'`,
        'triage status false positive',
      ],
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
});

/**
 * "How many findings did operators re-rate?" on real imported findings edited through
 * `editFinding` (the triage service's own function): re-rated means the current severity differs
 * from version 1's, edited means any operator edit. Expected numbers come from SQL over the
 * versions, never typed by hand.
 */
describe('edited findings', () => {
  const actor = { id: '00000000-0000-4000-8000-000000000001', username: 'alice' };
  let db: TestDatabase;
  let planner: PlannerRunner;

  /** Findings whose current severity differs from version 1's, and those with any operator edit, from the rows. */
  const RERATED = `SELECT count(*)::int AS n FROM findings f JOIN finding_versions v1 ON v1.finding_id = f.id AND v1.version = 1 WHERE v1.severity <> f.severity`;
  const EDITED = `SELECT count(DISTINCT finding_id)::int AS n FROM finding_versions WHERE origin = 'edit'`;
  const count = async (sql: string): Promise<number> => (await db.dataSource.query(sql))[0].n;

  beforeAll(async () => {
    db = await createTestDatabase();
    const outcomes = await importCorpusFiles(db.dataSource, [
      'scans/zap/dd__zap-results-first-scan.xml',
      'scans/burp/dd__one_finding.xml',
    ]);
    if (outcomes.some((o) => !o.ok)) throw new Error(`imports failed: ${JSON.stringify(outcomes)}`);
    planner = new PlannerRunner(new CorpusTools(db.dataSource, defaultCorpusQueries, defaultReadOnly));
    const rows: { id: number; severity: string }[] = await db.dataSource.query(
      `SELECT id, severity::text AS severity FROM findings ORDER BY id LIMIT 4`,
    );
    const other = (s: string) => (s === 'critical' ? 'low' : 'critical');
    const edit = async (id: number, changes: Parameters<typeof editFinding>[2]) =>
      expect(
        (await editFinding(db.dataSource.manager, id, changes, 'triaged by the planner edit test', actor))
          .status,
      ).toBe('ok');
    await edit(rows[0].id, { severity: other(rows[0].severity) as never });
    await edit(rows[1].id, { severity: other(rows[1].severity) as never, title: 'Retitled by triage' });
    await edit(rows[2].id, { title: 'Only the title changed' });
    // Re-rated and set back: edited, not re-rated.
    await edit(rows[3].id, { severity: other(rows[3].severity) as never });
    await edit(rows[3].id, { severity: rows[3].severity as never });
  }, 120_000);
  afterAll(async () => db?.drop(), 60_000);

  const ask = (message: string): Promise<CapturedTurn> => new TestThread(planner).ask(message);

  describe('built-in planner: findings operators edited', () => {
    it.each([
      ['How many findings did operators re-rate?', 'severity'],
      ['how many findings were re-rated', 'severity'],
      ['Which findings did operators change the severity of?', 'severity'],
      ['how many findings had their severity changed?', 'severity'],
      ['how many findings were edited', 'any'],
      ['How many findings have operators modified?', 'any'],
    ])('%s', async (question, edited) => {
      const expected = await count(edited === 'severity' ? RERATED : EDITED);
      expect(expected).toBeGreaterThan(0);
      const turn = await ask(question);
      expectNumbers(turn, [expected]);
      expect(turn.events.find((e) => e.type === 'tool.call')).toMatchObject({ args: { edited } });
      expect(turn.outcome.content).toContain(
        edited === 'severity' ? 're-rated by operators' : 'edited by operators',
      );
    });

    it('combines with other filters: re-rated findings in one report', async () => {
      const expected = await count(
        `${RERATED} AND f.report_id = (SELECT id FROM reports WHERE filename = 'dd__zap-results-first-scan.xml')`,
      );
      const turn = await ask('how many findings in dd__zap-results-first-scan.xml were re-rated?');
      expectNumbers(turn, [expected]);
    });

    it('asking to change a severity is still refused as a write', () => {
      expect(parseQuestion('change the severity of finding 3 to low')).toEqual({
        kind: 'out_of_scope',
        reason: 'write',
      });
      expect(parseQuestion('please edit the findings')).toEqual({ kind: 'out_of_scope', reason: 'write' });
    });
  });
});

/**
 * Acceptance: the built-in planner answers the scan comparison questions r16, r17 and r18 of
 * shared/questions/questions-r2.json with exactly their numbers and names, through the
 * `compare_reports` tool, on the four itsecgames ZAP scans imported with the real importer.
 */
describe('scan comparison', () => {
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
});
