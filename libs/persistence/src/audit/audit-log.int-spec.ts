import { createTestDatabase, insertTestOperator, type TestDatabase } from '../testing';
import { listAuditEvents, recordAuditEvents } from './audit-log';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

/** Inserts an event at `at` directly (a transaction that began earlier stamps its events earlier). */
const eventAt = async (at: string, action: string, actorId: string | null, subjectId: string) =>
  (
    await db.dataSource.query(
      `INSERT INTO audit_events (action, actor_id, actor_name, subject_type, subject_id, created_at)
       VALUES ($1, $2, 'x', 'report', $3, $4) RETURNING id::int AS id`,
      [action, actorId, subjectId, at],
    )
  )[0].id as number;

test('newest first by time, then id; cursor pages through events sharing one timestamp without gaps', async () => {
  const op = await insertTestOperator(db.dataSource);
  // 25 events in one statement: one transaction, one timestamp.
  await recordAuditEvents(
    db.dataSource.manager,
    Array.from({ length: 25 }, (_, i) => ({
      action: 'report.archive' as const,
      actor: { id: op.id, username: op.username },
      subjectType: 'report' as const,
      subjectId: i + 1,
    })),
  );
  // Written after them, but stamped a day earlier: it sorts last although its id is the largest.
  const older = await eventAt(new Date(Date.now() - 86_400_000).toISOString(), 'report.restore', op.id, '99');
  const pages = [];
  let cursor: string | undefined;
  do {
    const page = await listAuditEvents(db.dataSource.manager, { limit: 12, actorId: op.id, cursor });
    pages.push(page.events);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  const all = pages.flat();
  expect(pages.map((p) => p.length)).toEqual([12, 12, 2]);
  expect(all).toHaveLength(26);
  expect(new Set(all.map((e) => e.id)).size).toBe(26);
  const batch = all.slice(0, 25).map((e) => e.id);
  expect(batch).toEqual([...batch].sort((a, b) => b - a));
  expect(all[25].id).toBe(older);
  expect(older).toBeGreaterThan(Math.max(...batch));
});

test('filters by operator, action and date range (from inclusive, to exclusive; a bare date is UTC)', async () => {
  const [a, b] = await Promise.all([insertTestOperator(db.dataSource), insertTestOperator(db.dataSource)]);
  const first = await eventAt('2026-03-01T00:00:00Z', 'finding.status', a.id, '1');
  const second = await eventAt('2026-03-01T23:59:59.999999Z', 'finding.status', a.id, '2');
  const third = await eventAt('2026-03-02T00:00:00Z', 'finding.edit', a.id, '3');
  await eventAt('2026-03-01T12:00:00Z', 'finding.status', b.id, '4');
  const ids = async (filter: Parameters<typeof listAuditEvents>[1]) =>
    (await listAuditEvents(db.dataSource.manager, { actorId: a.id, ...filter })).events.map((e) => e.id);
  expect(await ids({ from: '2026-03-01', to: '2026-03-02' })).toEqual([second, first]);
  expect(await ids({ from: '2026-03-01T00:00:00.000001Z' })).toEqual([third, second]);
  expect(await ids({ to: '2026-03-02T03:00:00+03:00' })).toEqual([second, first]);
  expect(await ids({ action: 'finding.edit' })).toEqual([third]);
  expect(await ids({ from: '2026-03-02', action: 'finding.status' })).toEqual([]);
});
