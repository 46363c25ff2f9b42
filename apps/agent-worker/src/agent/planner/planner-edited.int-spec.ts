/**
 * "How many findings did operators re-rate?" on real imported findings edited through
 * `editFinding` (the triage service's own function): re-rated means the current severity differs
 * from version 1's, edited means any operator edit. Expected numbers come from SQL over the
 * versions, never typed by hand.
 */
import 'reflect-metadata';
import { CorpusTools, defaultCorpusQueries, defaultReadOnly, editFinding } from '@corpus-chat/corpus-queries';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';
import { TestThread, expectNumbers, type CapturedTurn } from '../testing/turn-harness';
import { parseQuestion } from './question-parser';
import { PlannerRunner } from './planner-runner';

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
