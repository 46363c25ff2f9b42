/** `WORKER_QUEUES`: a worker connects to the queues it is given and to no other (real Redis and BullMQ). */
import { Queue } from 'bullmq';
import { CHAT_TURNS_QUEUE, IMPORTS_QUEUE, WEBHOOKS_QUEUE } from '@corpus-chat/contracts';
import { createTestDatabase, type TestDatabase, testRedisPrefix } from '@corpus-chat/persistence/testing';
import { RedisKeys, redisOptionsFromUrl } from '@corpus-chat/server-core';
import { type RunningWorker, startWorker } from './support/worker-harness';

jest.setTimeout(40_000);

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
let db: TestDatabase;
const opened: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()));
  await db.drop();
});

/** The names of the BullMQ workers connected to each queue of a worker started with `WORKER_QUEUES=value`. */
async function workersPerQueue(value: string): Promise<Record<string, number>> {
  const prefix = testRedisPrefix();
  const worker: RunningWorker = await startWorker({
    databaseUrl: db.url,
    redisPrefix: prefix,
    env: { WORKER_QUEUES: value },
  });
  opened.push(worker);
  const queues = [CHAT_TURNS_QUEUE, IMPORTS_QUEUE, WEBHOOKS_QUEUE].map((name) => {
    const queue = new Queue(name, {
      connection: redisOptionsFromUrl(REDIS_URL),
      prefix: new RedisKeys(prefix).bullPrefix,
    });
    opened.push(queue);
    return queue;
  });
  // Wait until the worker is connected to every queue it was given, then count them all.
  const expected = queues.filter((q) => value.includes(queueRole(q.name)));
  for (let i = 0; i < 250; i++) {
    const connected = await Promise.all(expected.map((q) => q.getWorkersCount()));
    if (connected.every((n) => n > 0)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const counts: Record<string, number> = {};
  for (const q of queues) counts[queueRole(q.name)] = await q.getWorkersCount();
  return counts;
}

const queueRole = (name: string) =>
  name === CHAT_TURNS_QUEUE ? 'turns' : name === IMPORTS_QUEUE ? 'imports' : 'webhooks';

it('takes every queue by default, only those it is told otherwise', async () => {
  expect(await workersPerQueue('turns,imports,webhooks')).toEqual({ turns: 1, imports: 1, webhooks: 1 });
  expect(await workersPerQueue('imports')).toEqual({ turns: 0, imports: 1, webhooks: 0 });
  expect(await workersPerQueue('turns,webhooks')).toEqual({ turns: 1, imports: 0, webhooks: 1 });
});
