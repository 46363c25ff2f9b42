import { testRedisPrefix } from '@corpus-chat/persistence/testing';
import { closeRedis, createRedisConnection } from '../redis/redis-connection';
import { ModelSlots } from './model-slots';

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const SERVER = 'http://127.0.0.1:11434/v1';

describe('ModelSlots (real Redis)', () => {
  const redis = createRedisConnection(REDIS_URL, 'test-model-slots', 'patient');
  const prefix = testRedisPrefix();
  afterAll(async () => {
    const keys = await redis.keys(`{${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await closeRedis(redis);
  });

  it('never lets more than max hold a slot across several processes’ semaphores, and serves all', async () => {
    // Three "workers", each with its own semaphore object, sharing the Redis keys.
    const workers = [1, 2, 3].map(() => new ModelSlots(redis, prefix, { max: 2, pollMs: 10 }));
    let open = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const release = await workers[i % 3].acquire(SERVER, new AbortController().signal);
        most = Math.max(most, ++open);
        await new Promise((r) => setTimeout(r, 5 + (i % 4) * 5));
        open--;
        await release();
      }),
    );
    expect(most).toBe(2);
  });

  it('tells a waiter its place in line, first come first served, and lets an aborted waiter leave', async () => {
    const slots = new ModelSlots(redis, `${prefix}:line`, { max: 1, pollMs: 10 });
    const release = await slots.acquire(SERVER, new AbortController().signal);
    const places: number[][] = [[], [], []];
    const order: number[] = [];
    const quitter = new AbortController();
    let thirdInLine: () => void = () => undefined;
    const thirdWaits = new Promise<void>((resolve) => (thirdInLine = resolve));
    const waiting = [0, 1, 2].map(async (i) => {
      const signal = i === 1 ? quitter.signal : new AbortController().signal;
      const done = await slots.acquire(SERVER, signal, (p) => {
        places[i].push(p);
        if (i === 2) thirdInLine();
      });
      order.push(i);
      await done();
    });
    waiting[1].catch(() => undefined);
    await thirdWaits;
    quitter.abort(new Error('stopped'));
    await expect(waiting[1]).rejects.toThrow('stopped');
    await release();
    await Promise.all([waiting[0], waiting[2]]);
    expect(order).toEqual([0, 2]);
    expect(places[0][0]).toBe(1);
    expect(places[2][0]).toBeGreaterThanOrEqual(2);
  });

  it('takes back the slot of a holder that stopped renewing (a dead worker)', async () => {
    const p = `${prefix}:dead`;
    const slots = new ModelSlots(redis, p, { max: 1, pollMs: 10 });
    const release = await slots.acquire(SERVER, new AbortController().signal);
    const [holders] = await redis.keys(`{${p}}:model-slots:*:holders`);
    // A worker that died holding a slot: its lease is never renewed and runs out in 300 ms.
    await redis.zadd(holders, Date.now() + 300, 'dead-worker');
    await release();
    const started = Date.now();
    const next = await slots.acquire(SERVER, AbortSignal.timeout(5000));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await next();
  });

  it('is a no-op with max 0', async () => {
    const slots = new ModelSlots(redis, prefix, { max: 0 });
    expect(slots.enabled).toBe(false);
    await (
      await slots.acquire(SERVER, new AbortController().signal)
    )();
  });
});
