import 'reflect-metadata';
import { createTestDatabase, type TestDatabase } from '../testing';
import { concurrently } from './concurrently';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => {
  await db?.drop();
});

const sleep = (manager: Parameters<typeof concurrently>[0], label: string) => async () => {
  await manager.query(`SELECT pg_sleep(0.25)`);
  return label;
};

test('on the pool, the tasks run at once and resolve in order', async () => {
  const m = db.dataSource.manager;
  const started = Date.now();
  expect(await concurrently(m, [sleep(m, 'a'), sleep(m, 'b')])).toEqual(['a', 'b']);
  expect(Date.now() - started).toBeLessThan(450);
});

test('in a transaction, one after another: its one pg client never has a query waiting behind another', async () => {
  const result = await db.dataSource.transaction(async (tx) => {
    // pg queues a query sent while one runs (deprecated in pg 8, removed in pg 9): count them.
    const client = (
      tx.queryRunner as unknown as { databaseConnection: { query: (...a: unknown[]) => Promise<unknown> } }
    ).databaseConnection;
    const query = client.query.bind(client);
    let inFlight = 0;
    let most = 0;
    client.query = async (...args: unknown[]) => {
      most = Math.max(most, ++inFlight);
      try {
        return await query(...args);
      } finally {
        inFlight--;
      }
    };
    try {
      const started = Date.now();
      const out = await concurrently(tx, [sleep(tx, 'a'), sleep(tx, 'b'), sleep(tx, 'c')]);
      return { out, ms: Date.now() - started, most };
    } finally {
      client.query = query;
    }
  });
  expect(result.out).toEqual(['a', 'b', 'c']);
  expect(result.most).toBe(1);
  expect(result.ms).toBeGreaterThanOrEqual(750);
});
