import 'reflect-metadata';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import { type ChatSummaryView, type JoinChatAck, SocketEvents } from '@corpus-chat/contracts';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { RedisKeys } from '@corpus-chat/server-core';
import { SOCKET_RATE_LIMITED, tooManySockets } from '../src/chat/socket-limits';
import {
  type ApiInstance,
  emitWithAck,
  eventually,
  newDeployment,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import { connectChatSocket, type LoginSession } from './support/login';

jest.setTimeout(60_000);

const MAX_SOCKETS = 4;

/**
 * The `/chat` gateway under abuse and concurrency, with socket.io-client against the real API,
 * Postgres and Redis: per-socket event limits, the cap on sockets per operator, and exact
 * reference counting of thread subscriptions (checked with Redis's own `PUBSUB NUMSUB`).
 */
describe('chat sockets: limits and subscriptions', () => {
  let db: TestDatabase;
  let api: ApiInstance; // generous event limit: concurrency tests
  let strict: ApiInstance; // 1 event per second and few sockets: limit tests
  let redis: Redis;
  let keys: RedisKeys;
  let alice: LoginSession;
  const open: Socket[] = [];

  const connect = async (target: ApiInstance, who: LoginSession): Promise<Socket> => {
    const s = await connectChatSocket(target.baseUrl, who);
    open.push(s);
    return s;
  };
  const newChat = async (who: LoginSession): Promise<string> => {
    const res = await request(api.app.getHttpServer()).post('/api/chats').set(who.headers).send({});
    expect(res.status).toBe(201);
    return (res.body as ChatSummaryView).id;
  };
  const join = (s: Socket, chatId: string) =>
    emitWithAck<JoinChatAck>(s, SocketEvents.join, { chatId }, 20_000);
  const leave = (s: Socket, chatId: string) =>
    emitWithAck<{ ok: boolean }>(s, SocketEvents.leave, { chatId }, 20_000);
  /** Subscribers of the thread's event channel in Redis (every API instance's subscriber counts once). */
  const subscribers = async (chatId: string): Promise<number> => {
    const [, n] = (await redis.call('PUBSUB', 'NUMSUB', keys.chatEvents(chatId))) as [string, number];
    return Number(n);
  };
  const noSubscriber = (chatId: string) =>
    eventually(async () => (await subscribers(chatId)) === 0, 10_000, `no subscriber on chat ${chatId}`);

  beforeAll(async () => {
    db = await createTestDatabase();
    const deployment = newDeployment();
    keys = new RedisKeys(deployment.redisPrefix);
    [api, strict] = await Promise.all([
      startApiInstance({
        databaseUrl: db.url,
        ...deployment,
        env: { SOCKET_EVENTS_PER_SECOND: '1000' },
      }),
      startApiInstance({
        databaseUrl: db.url,
        ...deployment,
        env: { SOCKET_EVENTS_PER_SECOND: '1', MAX_SOCKETS_PER_OPERATOR: String(MAX_SOCKETS) },
      }),
    ]);
    redis = new Redis(process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
    alice = await signIn(api, db.dataSource);
  });

  afterAll(async () => {
    open.forEach((s) => s.close());
    redis?.disconnect();
    await Promise.all([api?.close(), strict?.close()]);
    await db?.drop();
  });

  describe('thread subscriptions are counted exactly', () => {
    it('50 concurrent joins of one thread from one socket hold one subscription, released by one leave', async () => {
      const chatId = await newChat(alice);
      const s = await connect(api, alice);
      const acks = await Promise.all(Array.from({ length: 50 }, () => join(s, chatId)));
      expect(acks.every((a) => a.ok)).toBe(true);
      expect(await subscribers(chatId)).toBe(1);
      expect(await leave(s, chatId)).toEqual({ ok: true });
      await noSubscriber(chatId);
    });

    it('concurrent joins from several sockets: the subscription lasts until the last one leaves or disconnects', async () => {
      const chatId = await newChat(alice);
      const sockets = await Promise.all([connect(api, alice), connect(api, alice), connect(api, alice)]);
      const acks = await Promise.all(
        sockets.flatMap((s) => Array.from({ length: 50 }, () => join(s, chatId))),
      );
      expect(acks.every((a) => a.ok)).toBe(true);
      expect(await subscribers(chatId)).toBe(1);
      expect(await leave(sockets[0], chatId)).toEqual({ ok: true });
      sockets[1].close();
      // The third socket still follows the thread: its subscription must survive the others.
      expect(await join(sockets[2], chatId)).toMatchObject({ ok: true });
      expect(await subscribers(chatId)).toBe(1);
      sockets[2].close();
      await noSubscriber(chatId);
    });

    it('joins and leaves sent back to back take effect in order: the last one (a leave) wins', async () => {
      const chatId = await newChat(alice);
      const s = await connect(api, alice);
      const acks = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? join(s, chatId) : leave(s, chatId))),
      );
      expect(acks.every((a) => a.ok)).toBe(true);
      await noSubscriber(chatId);
      // The socket is still usable and follows the thread again after one more join.
      expect(await join(s, chatId)).toMatchObject({ ok: true });
      expect(await subscribers(chatId)).toBe(1);
    });

    it('a socket that disconnects while its joins are in flight leaves no subscription behind', async () => {
      const chatId = await newChat(alice);
      const s = await connect(api, alice);
      for (let i = 0; i < 50; i++) s.emit(SocketEvents.join, { chatId }, () => undefined);
      s.close();
      await noSubscriber(chatId);
      // And a later follower is served normally.
      const other = await connect(api, alice);
      expect(await join(other, chatId)).toMatchObject({ ok: true });
      expect(await subscribers(chatId)).toBe(1);
      other.close();
      await noSubscriber(chatId);
    });
  });

  describe('events per socket', () => {
    it('refuses events beyond the burst with an ack the client can act on', async () => {
      const bob = await signIn(strict, db.dataSource);
      const chatId = await newChat(bob);
      const s = await connect(strict, bob);
      // 1 event per second, bursts of 2: of 8 sent at once, at most the burst (and a refill) pass.
      const acks = await Promise.all(Array.from({ length: 8 }, () => join(s, chatId)));
      const refused = acks.filter((a) => !a.ok);
      expect(acks.filter((a) => a.ok).length).toBeLessThanOrEqual(3);
      expect(refused.length).toBeGreaterThanOrEqual(5);
      expect(refused.every((a) => a.error === SOCKET_RATE_LIMITED)).toBe(true);
      expect(s.connected).toBe(true);
    });

    it('disconnects a socket that keeps sending far past its limit', async () => {
      const carol = await signIn(strict, db.dataSource);
      const chatId = await newChat(carol);
      const s = await connect(strict, carol);
      const reason = new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('not disconnected within 10 s')), 10_000);
        s.once('disconnect', (why) => (clearTimeout(timer), resolve(why)));
      });
      // Bursts of 2, then 10 refusals are tolerated: 30 at once is sustained abuse.
      for (let i = 0; i < 30; i++) s.emit(SocketEvents.join, { chatId }, () => undefined);
      expect(await reason).toBe('io server disconnect');
      // Only that socket is gone: the operator may connect again.
      const again = await connect(strict, carol);
      expect(again.connected).toBe(true);
    });
  });

  describe('sockets per operator', () => {
    it(`refuses the operator's socket beyond ${MAX_SOCKETS} with a clear connect_error, and frees the slot on disconnect`, async () => {
      const dave = await signIn(strict, db.dataSource);
      const sockets = [];
      for (let i = 0; i < MAX_SOCKETS; i++) sockets.push(await connect(strict, dave));
      await expect(connectChatSocket(strict.baseUrl, dave)).rejects.toThrow(tooManySockets(MAX_SOCKETS));
      // Another operator is not affected.
      const erin = await signIn(strict, db.dataSource);
      expect((await connect(strict, erin)).connected).toBe(true);
      // Closing one of dave's sockets frees its slot (once the server has seen the disconnect).
      sockets[0].close();
      const again = await eventually<Socket | null>(
        () =>
          connectChatSocket(strict.baseUrl, dave).then(
            (s) => (open.push(s), s),
            () => null,
          ),
        10_000,
        'a free socket slot',
      );
      expect(again?.connected).toBe(true);
    });

    it('concurrent handshakes of one operator never exceed the cap', async () => {
      const frank = await signIn(strict, db.dataSource);
      const results = await Promise.allSettled(
        Array.from({ length: MAX_SOCKETS * 3 }, () => connectChatSocket(strict.baseUrl, frank)),
      );
      const connected = results.filter((r): r is PromiseFulfilledResult<Socket> => r.status === 'fulfilled');
      connected.forEach((r) => open.push(r.value));
      expect(connected.length).toBe(MAX_SOCKETS);
      const refusals = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(refusals.every((r) => (r.reason as Error).message === tooManySockets(MAX_SOCKETS))).toBe(true);
    });
  });
});
