import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { closeRedis, createRedisConnection, type RedisClient } from '../redis/redis-connection';
import { RedisKeys } from '../redis/redis-keys';
import { TurnEventSubscriber } from './turn-event-subscriber';

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

describe('turn event subscriber (real Redis)', () => {
  const keys = new RedisKeys(`cc-test-${process.env['CC_TEST_RUN_ID'] || 'local'}-${randomUUID()}`);
  let probe: RedisClient;
  let connection: RedisClient | undefined;
  let subscriber: TurnEventSubscriber;

  /** Subscribers of the thread's channel, as Redis counts them. */
  const numsub = async (chatId: string): Promise<number> =>
    Number(((await probe.call('PUBSUB', 'NUMSUB', keys.chatEvents(chatId))) as [string, number])[1]);
  beforeAll(() => {
    probe = createRedisConnection(REDIS_URL, 'subscriber-test-probe', 'patient');
    subscriber = new TurnEventSubscriber(
      () => (connection = createRedisConnection(REDIS_URL, 'subscriber-test', 'subscriber')),
      keys,
    );
  });

  afterAll(async () => {
    await subscriber.close();
    await closeRedis(probe);
  });

  it('counts handlers per thread: the channel is held until the last one is removed', async () => {
    const chatId = randomUUID();
    const removers = await Promise.all(
      Array.from({ length: 20 }, () => subscriber.subscribeChat(chatId, () => undefined)),
    );
    expect(await numsub(chatId)).toBe(1);
    await Promise.all(removers.slice(1).map((remove) => remove()));
    expect(await numsub(chatId)).toBe(1);
    await removers[0]();
    await removers[0](); // a second call is a no-op
    expect(await numsub(chatId)).toBe(0);
  });

  it('a handler removed while the connection is down does not come back subscribed after the reconnect', async () => {
    const chatId = randomUUID();
    const kept = randomUUID();
    const remove = await subscriber.subscribeChat(chatId, () => undefined);
    const keep = await subscriber.subscribeChat(kept, () => undefined);
    const redis = connection as RedisClient;
    const closed = once(redis, 'close');
    redis.disconnect(true); // drop the connection; ioredis reconnects and re-subscribes
    await closed;
    await remove();
    if (redis.status !== 'ready') await once(redis, 'ready');
    // On 'ready' ioredis sends the re-subscription, then its offline queue (the removal's
    // UNSUBSCRIBE); a PING sent now is answered after both.
    await redis.ping();
    expect(await numsub(kept)).toBe(1); // the re-subscription happened…
    expect(await numsub(chatId)).toBe(0); // …and the removed thread's channel was given up after it
    await keep();
  });
});
