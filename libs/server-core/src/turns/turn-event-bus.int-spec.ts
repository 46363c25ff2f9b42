import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { type ChatEvent, compareSeq, NO_SEQ } from '@corpus-chat/contracts';
import { eventually } from '@corpus-chat/persistence/testing';
import {
  closeRedis,
  createRedisConnection,
  type RedisClient,
  waitUntilReady,
} from '../redis/redis-connection';
import { RedisKeys } from '../redis/redis-keys';
import { TurnCancelSignals } from './turn-cancel-signals';
import {
  TURN_EVENTS_RETENTION_ACTIVE_S,
  TURN_EVENTS_RETENTION_AFTER_END_S,
  TurnEventBus,
} from './turn-event-bus';
import { TurnEventSubscriber } from './turn-event-subscriber';

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

describe('turn event bus (real Redis)', () => {
  const keys = new RedisKeys(`cc-test-${process.env['CC_TEST_RUN_ID'] || 'local'}-${randomUUID()}`);
  const connections: RedisClient[] = [];
  const connect = (name: string, role: 'fail-fast' | 'patient' | 'subscriber' = 'patient') => {
    const c = createRedisConnection(REDIS_URL, name, role);
    connections.push(c);
    return c;
  };
  let redis: RedisClient;
  let bus: TurnEventBus;
  let subscriber: TurnEventSubscriber;

  beforeAll(() => {
    redis = connect('bus-test');
    bus = new TurnEventBus(redis, keys);
    subscriber = new TurnEventSubscriber(() => connect('bus-test-sub', 'subscriber'), keys);
  });

  afterAll(async () => {
    const found = await redis.keys(`${keys.root}:*`);
    if (found.length) await redis.del(...found);
    await subscriber.close();
    await Promise.all(connections.map((c) => closeRedis(c)));
  });

  it('publishes from concurrent producers as one chain of stream ids, live and in the stream', async () => {
    const chatId = randomUUID();
    const turnId = randomUUID();
    const live: ChatEvent[] = [];
    const unsubscribe = await subscriber.subscribeChat(chatId, (e) => live.push(e));
    // Three connections publish interleaved, as the API and two worker attempts could.
    const producers = [bus, new TurnEventBus(connect('p2'), keys), new TurnEventBus(connect('p3'), keys)];
    const published = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        producers[i % 3].publish(chatId, turnId, { type: 'text.delta', text: `d${i}` }),
      ),
    );
    await eventually(() => live.length === 60);
    // Each event names the one before it; seqs rise in the order Redis ran the publishes.
    expect(live[0].prev).toBe(NO_SEQ);
    live.slice(1).forEach((e, i) => {
      expect(e.prev).toBe(live[i].seq);
      expect(compareSeq(e.seq, live[i].seq)).toBeGreaterThan(0);
    });
    expect(new Set(published.map((e) => e!.seq))).toEqual(new Set(live.map((e) => e.seq)));
    expect(live[0]).toMatchObject({ chatId, turnId, type: 'text.delta' });
    expect(typeof live[0].at).toBe('string');
    expect(await bus.replay(turnId)).toEqual(live);
    await unsubscribe();
  });

  it('replays exactly the events after a given seq', async () => {
    const chatId = randomUUID();
    const turnId = randomUUID();
    const seqs: string[] = [];
    for (let i = 0; i < 7; i++)
      seqs.push((await bus.publish(chatId, turnId, { type: 'text.delta', text: String(i) }))!.seq);
    expect((await bus.replay(turnId, seqs[3])).map((e) => e.seq)).toEqual(seqs.slice(4));
    expect(await bus.replay(turnId, seqs[6])).toEqual([]);
    expect(await bus.replay(randomUUID())).toEqual([]);
  });

  it('closes a turn at its terminal event: later events are dropped and the stream expires in 10 minutes', async () => {
    const chatId = randomUUID();
    const turnId = randomUUID();
    await bus.publish(chatId, turnId, { type: 'turn.queued', position: 1 });
    const done = await bus.publish(chatId, turnId, { type: 'turn.done', messageId: randomUUID() });
    expect(done?.prev).toBe((await bus.replay(turnId))[0].seq);
    expect(await bus.publish(chatId, turnId, { type: 'text.delta', text: 'late' })).toBeNull();
    expect(
      await bus.publish(chatId, turnId, { type: 'turn.error', code: 'INTERNAL', message: 'x' }),
    ).toBeNull();
    expect((await bus.replay(turnId)).map((e) => e.type)).toEqual(['turn.queued', 'turn.done']);
    const ttl = await redis.ttl(keys.turnEvents(turnId));
    expect(ttl).toBeGreaterThan(TURN_EVENTS_RETENTION_AFTER_END_S - 5);
    expect(ttl).toBeLessThanOrEqual(TURN_EVENTS_RETENTION_AFTER_END_S);
    expect(await redis.exists(keys.turnEnded(turnId))).toBe(1);
  });

  it('forgets a deleted thread’s turns: the stream goes, the ended flag keeps late publishes out', async () => {
    const chatId = randomUUID();
    const [ended, active] = [randomUUID(), randomUUID()];
    await bus.publish(chatId, ended, { type: 'turn.queued', position: 1 });
    await bus.publish(chatId, ended, { type: 'turn.cancelled', messageId: randomUUID() });
    await bus.publish(chatId, active, { type: 'text.delta', text: 'secret' });
    await bus.forget([ended, active]);
    for (const id of [ended, active]) {
      expect(await redis.exists(keys.turnEvents(id))).toBe(0);
      expect(await bus.replay(id)).toEqual([]);
    }
    expect(await bus.publish(chatId, ended, { type: 'text.delta', text: 'late' })).toBeNull();
    expect(await redis.exists(keys.turnEvents(ended))).toBe(0);
  });

  it('gives an active turn’s stream the active retention from its first event on', async () => {
    const chatId = randomUUID();
    const turnId = randomUUID();
    await bus.publish(chatId, turnId, { type: 'turn.queued', position: 1 });
    const active = await redis.ttl(keys.turnEvents(turnId));
    expect(active).toBeGreaterThan(TURN_EVENTS_RETENTION_ACTIVE_S - 5);
    expect(active).toBeLessThanOrEqual(TURN_EVENTS_RETENTION_ACTIVE_S);
    // A text delta leaves the expiries alone (no key of a turn is ever left without one) …
    await redis.expire(keys.turnEvents(turnId), 100);
    await bus.publish(chatId, turnId, { type: 'text.delta', text: 'a' });
    const ttl = await redis.ttl(keys.turnEvents(turnId));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(100);
    // … and any other event renews the active retention (a turn started after a long queue wait).
    await bus.publish(chatId, turnId, { type: 'turn.started', workerId: 'w', attempt: 1 });
    expect(await redis.ttl(keys.turnEvents(turnId))).toBeGreaterThan(TURN_EVENTS_RETENTION_ACTIVE_S - 5);
  });

  it('after Redis lost a turn’s events, starts a new chain above every earlier seq', async () => {
    const chatId = randomUUID();
    const turnId = randomUUID();
    await bus.publish(chatId, turnId, { type: 'turn.queued', position: 1 });
    let last: ChatEvent | null = null;
    for (let i = 0; i < 40; i++)
      last = await bus.publish(chatId, turnId, { type: 'text.delta', text: `a${i}` });
    // What a restart without persistence leaves of this turn: nothing (and a restart takes more
    // than the millisecond of the last entry id).
    await redis.del(keys.turnEvents(turnId));
    await eventually(() => Date.now() > Number(last!.seq.split('-')[0]));

    const first = await bus.publish(chatId, turnId, { type: 'text.delta', text: 'b0' });
    const end = await bus.publish(chatId, turnId, {
      type: 'turn.error',
      code: 'WORKER_LOST',
      message: 'lost',
    });
    // A client holding `last` applies `first` (its prev is below what it holds), then `end`.
    expect(first).toMatchObject({ prev: NO_SEQ, text: 'b0' });
    expect(compareSeq(first!.seq, last!.seq)).toBeGreaterThan(0);
    expect(end!.prev).toBe(first!.seq);
    expect(await bus.replay(turnId, last!.seq)).toEqual([first, end]);
  });

  it('delivers cancel requests to a watcher, including one requested before watching', async () => {
    const signals = new TurnCancelSignals(redis, () => connect('cancel-sub', 'subscriber'), keys);
    const apiConnection = connect('cancel-api', 'fail-fast');
    expect(await waitUntilReady(apiConnection, 3000)).toBe(true);
    const requester = new TurnCancelSignals(apiConnection, () => connect('unused', 'subscriber'), keys);
    const early = randomUUID();
    await requester.request(early);
    let earlyFired = 0;
    await signals.watch(early, () => earlyFired++);
    expect(earlyFired).toBe(1);

    const late = randomUUID();
    let lateFired = 0;
    const stop = await signals.watch(late, () => lateFired++);
    expect(lateFired).toBe(0);
    const t0 = Date.now();
    await requester.request(late);
    await eventually(() => lateFired === 1);
    expect(Date.now() - t0).toBeLessThan(500);
    // A second request does not fire again: a later marker's broadcast arrives after it would have.
    const marker = randomUUID();
    let markerFired = 0;
    const stopMarker = await signals.watch(marker, () => markerFired++);
    await requester.request(late);
    await requester.request(marker);
    await eventually(() => markerFired === 1);
    expect(lateFired).toBe(1);
    stopMarker();
    stop();
    expect(await signals.isRequested(late)).toBe(true);
    expect(await signals.isRequested(randomUUID())).toBe(false);
    await signals.close();
  });
});
