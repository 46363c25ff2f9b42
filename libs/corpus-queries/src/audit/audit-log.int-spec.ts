import { createTestDatabase, insertTestOperator, type TestDatabase } from '../testing';
import { listAuditEvents, recordAuditEvents } from './audit-log';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

test('newest first by number (not as text: 10 above 9), and pages follow on without gaps', async () => {
  const op = await insertTestOperator(db.dataSource);
  await recordAuditEvents(
    db.dataSource.manager,
    Array.from({ length: 25 }, (_, i) => ({
      action: 'report.archive' as const,
      actor: { id: op.id, username: op.username },
      subjectType: 'report' as const,
      subjectId: i + 1,
    })),
  );
  const first = await listAuditEvents(db.dataSource.manager, { limit: 12 });
  const ids = first.events.map((e) => e.id);
  expect(ids).toEqual([...ids].sort((a, b) => b - a));
  const second = await listAuditEvents(db.dataSource.manager, { limit: 12, before: first.nextBefore! });
  const third = await listAuditEvents(db.dataSource.manager, { limit: 12, before: second.nextBefore! });
  const all = [...ids, ...second.events.map((e) => e.id), ...third.events.map((e) => e.id)];
  expect(all).toHaveLength(25);
  expect(all).toEqual([...all].sort((a, b) => b - a));
  expect(third.nextBefore).toBeNull();
});
