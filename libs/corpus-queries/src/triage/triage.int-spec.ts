/**
 * Triage in the data layer against Postgres: the FindingTriage migration over existing data
 * (findings start open, version 1 stays as imported), concurrent status changes serialising, and
 * cached counts following status changes and edits.
 */
import 'reflect-metadata';
import { countFindingsBy } from '../queries/count-findings-by';
import { searchFindings } from '../queries/search-findings';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';
import { editFinding } from './finding-edit';
import { addFindingNote } from './finding-notes';
import { setFindingStatus } from './finding-status';

const MIGRATION = 'FindingTriage1764501100000';
const actor = { id: '00000000-0000-4000-8000-000000000001', username: 'alice' };

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 120_000);
afterAll(async () => db?.drop());

const executed = async (): Promise<string[]> =>
  (await db.dataSource.query(`SELECT name FROM typeorm_migrations`)).map((r: { name: string }) => r.name);

test('the migration keeps existing findings: each starts open, version 1 as imported', async () => {
  // Back to the schema before triage (and anything after it), import there, then migrate again.
  while ((await executed()).includes(MIGRATION))
    await db.dataSource.undoLastMigration({ transaction: 'each' });
  const [outcome] = await importCorpusFiles(db.dataSource, ['scans/zap/dd__juicy2.xml']);
  expect(outcome.ok).toBe(true);
  const versionsBefore = await db.dataSource.query(
    `SELECT id, finding_id, version, origin, title FROM finding_versions ORDER BY id`,
  );
  await db.dataSource.runMigrations({ transaction: 'each' });

  expect(await executed()).toContain(MIGRATION);
  expect(
    await db.dataSource.query(`SELECT status, count(*)::int AS n FROM findings GROUP BY status`),
  ).toEqual([{ status: 'open', n: 6 }]);
  expect(
    await db.dataSource.query(
      `SELECT id, finding_id, version, origin, title FROM finding_versions ORDER BY id`,
    ),
  ).toEqual(versionsBefore);
  expect((await searchFindings(db.dataSource.manager, { status: 'open', limit: 0 })).total).toBe(6);
}, 120_000);

test('two concurrent changes of one finding serialise: one wins, the other sees its result', async () => {
  const [{ id }] = await db.dataSource.query(`SELECT id FROM findings ORDER BY id LIMIT 1`);
  const results = await Promise.all([
    setFindingStatus(db.dataSource.manager, { ids: [id], status: 'confirmed', actor }),
    setFindingStatus(db.dataSource.manager, { ids: [id], status: 'confirmed', actor }),
  ]);
  expect(results.map((r) => r.status).sort()).toEqual(['conflict', 'ok']);
  expect(
    await db.dataSource.query(`SELECT count(*)::int AS n FROM finding_status_changes WHERE finding_id = $1`, [
      id,
    ]),
  ).toEqual([{ n: 1 }]);
  expect(
    await db.dataSource.query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'finding.status'`),
  ).toEqual([{ n: 1 }]);
});

test('cached counts follow status changes and edits', async () => {
  const m = db.dataSource.manager;
  const confirmed = async () =>
    (await countFindingsBy(m, { groupBy: 'severity', filter: { status: 'confirmed' } })).total;
  const critical = async () =>
    (await countFindingsBy(m, { groupBy: 'severity' })).groups.find((g) => g.key === 'critical')!.count;
  expect(await confirmed()).toBe(1);
  expect(await critical()).toBe(0);
  const [{ id }] = await db.dataSource.query(
    `SELECT id FROM findings WHERE status = 'open' ORDER BY id LIMIT 1`,
  );
  expect((await setFindingStatus(m, { ids: [id], status: 'confirmed', actor })).status).toBe('ok');
  expect(await confirmed()).toBe(2);
  expect(await editFinding(m, id, { severity: 'critical' }, 'exploited in staging', actor)).toEqual({
    status: 'ok',
    version: 2,
    changed: ['severity'],
  });
  expect(await critical()).toBe(1);
  expect(
    (await countFindingsBy(m, { groupBy: 'severity', filter: { status: 'confirmed', severity: 'critical' } }))
      .total,
  ).toBe(1);
});

test('a breakdown by status lists every status, zeros included, as the rows hold them', async () => {
  const m = db.dataSource.manager;
  const byStatus = async () =>
    Object.fromEntries((await countFindingsBy(m, { groupBy: 'status' })).groups.map((g) => [g.key, g.count]));
  const fromRows = async () => {
    const rows: { status: string; n: number }[] = await db.dataSource.query(
      `SELECT status::text, count(*)::int AS n FROM findings GROUP BY 1`,
    );
    const counts: Record<string, number> = {
      open: 0,
      confirmed: 0,
      false_positive: 0,
      risk_accepted: 0,
      fixed: 0,
      needs_review: 0,
    };
    for (const r of rows) counts[r.status] = r.n;
    return counts;
  };
  const before = await byStatus();
  expect(before).toEqual(await fromRows());
  const [{ id }] = await db.dataSource.query(
    `SELECT id FROM findings WHERE status = 'open' ORDER BY id LIMIT 1`,
  );
  expect(
    (await setFindingStatus(m, { ids: [id], status: 'false_positive', reason: 'test fixture', actor }))
      .status,
  ).toBe('ok');
  const after = await byStatus();
  expect(after).toEqual(await fromRows());
  expect(after['false_positive']).toBe(before['false_positive'] + 1);
  expect((await countFindingsBy(m, { groupBy: 'status', filter: { status: 'false_positive' } })).total).toBe(
    after['false_positive'],
  );
});

test('an audit event keeps text jsonb would refuse (NUL, a lone surrogate) as U+FFFD', async () => {
  const m = db.dataSource.manager;
  const [{ id }] = await db.dataSource.query(`SELECT id FROM findings ORDER BY id LIMIT 1`);
  expect((await addFindingNote(m, id, { stage: 'general', body: 'a\u0000b\ud800c' }, actor)).status).toBe(
    'ok',
  );
  const [event] = await db.dataSource.query(
    `SELECT after->>'body' AS body FROM audit_events WHERE action = 'finding.note' ORDER BY id DESC LIMIT 1`,
  );
  expect(event.body).toBe('a\ufffdb\ufffdc');
});

test('audit events cannot be changed or deleted', async () => {
  await expect(db.dataSource.query(`DELETE FROM audit_events`)).rejects.toThrow(/append-only/);
  await expect(db.dataSource.query(`UPDATE audit_events SET actor_name = 'mallory'`)).rejects.toThrow(
    /append-only/,
  );
});
