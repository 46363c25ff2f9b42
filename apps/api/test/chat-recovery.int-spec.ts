import 'reflect-metadata';
import request from 'supertest';
import type { ChatEventOf, ChatSummaryView, PostMessageResponse } from '@corpus-chat/contracts';
import { createTestDatabase, eventually } from '@corpus-chat/persistence/testing';
import { RedisKeys } from '@corpus-chat/server-core';
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import {
  type ApiInstance,
  type EventCollector,
  expectGapFree,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import type { LoginSession } from './support/login';
import { startTestRedisServer, type TestRedisServer } from './support/redis-server';
import { newGate, openGate, scriptedMessage, type TurnScript } from './support/turn-script';
import { spawnWorkerProcess, WORKER_START_MS, type WorkerProcess } from './support/worker-process';

jest.setTimeout(90_000);

/**
 * Bound of a test or hook that starts `workers` worker processes: above their start-up bounds plus
 * the waits of its own (safety nets, not timings; each wait fails first, naming what it waited for).
 */
const withWorkerStarts = (workers: number) => workers * WORKER_START_MS + 90_000;

/** Short locks so a killed worker's turn is picked up within ~3 s. */
const FAST_RECOVERY = { LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '1000' };

async function setUp(redisUrl?: string) {
  const db = await createTestDatabase();
  const deployment = newDeployment();
  const api = await startApiInstance({ databaseUrl: db.url, ...deployment, redisUrl });
  const session = await signIn(api, db.dataSource);
  const spawn = (env: Record<string, string> = {}) =>
    spawnWorkerProcess({
      databaseUrl: db.url,
      redisPrefix: deployment.redisPrefix,
      redisUrl,
      env: { ...FAST_RECOVERY, ...env },
    });
  return { db, api, session, spawn, keys: new RedisKeys(deployment.redisPrefix) };
}

function helpers(api: ApiInstance, who: LoginSession) {
  const http = () => request(api.app.getHttpServer());
  return {
    http,
    newChat: async () =>
      ((await http().post('/api/chats').set(who.headers).send({})).body as ChatSummaryView).id,
    post: (chatId: string, script: TurnScript) =>
      http()
        .post(`/api/chats/${chatId}/messages`)
        .set(who.headers)
        .send({ content: scriptedMessage(script) }),
  };
}

describe('turns survive crashed and stopped workers', () => {
  let env: Awaited<ReturnType<typeof setUp>>;
  const workers: WorkerProcess[] = [];
  const sockets: EventCollector[] = [];

  beforeAll(async () => {
    env = await setUp();
  });
  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await Promise.all(workers.map((w) => w.stop()));
    await env?.api.close();
    await env?.db.drop();
  });

  it(
    'kill -9 of the worker mid-turn: another worker restarts it as attempt 2 and the thread holds exactly one answer',
    async () => {
      const { http, newChat, post } = helpers(env.api, env.session);
      const doomed = await env.spawn();
      workers.push(doomed);
      const chatId = await newChat();
      const watcher = await openChatSocket(env.api, env.session);
      sockets.push(watcher);
      await watcher.join(chatId);
      // The turn holds after its first delta until the gate opens, so the kill lands mid-turn however
      // long the second worker takes to boot; the gate opens once the first worker is gone.
      const gate = newGate();
      const { turnId } = (await post(chatId, { deltaCount: 30, deltaMs: 5, hold: { afterDeltas: 1, gate } }))
        .body as PostMessageResponse;
      await watcher.waitFor(turnId, 'text.delta');
      expect(watcher.forTurn(turnId).find((e) => e.type === 'turn.started')).toMatchObject({
        workerId: doomed.workerId,
        attempt: 1,
      });

      const survivor = await env.spawn();
      workers.push(survivor);
      doomed.kill('SIGKILL');
      expect((await doomed.exited).signal).toBe('SIGKILL');
      expect(watcher.forTurn(turnId).filter((e) => e.type === 'text.delta')).toHaveLength(1);
      openGate(gate);

      const done = (await watcher.waitFor(turnId, 'turn.done', 60_000)) as ChatEventOf<'turn.done'>;
      const events = watcher.forTurn(turnId);
      expectGapFree(events);
      const started = events.filter((e) => e.type === 'turn.started') as ChatEventOf<'turn.started'>[];
      expect(started.map((e) => [e.workerId, e.attempt])).toEqual([
        [doomed.workerId, 1],
        [survivor.workerId, 2],
      ]);
      // After attempt 2 started, the full answer streams again (the client drops attempt 1's text).
      const afterRestart = events.slice(events.indexOf(started[1]));
      expect(afterRestart.filter((e) => e.type === 'text.delta')).toHaveLength(30);

      const answers = await env.db.dataSource.query(
        `SELECT id, status, content FROM chat_messages WHERE turn_id = $1 AND role = 'assistant'`,
        [turnId],
      );
      expect(answers).toEqual([
        { id: done.messageId, status: 'complete', content: expect.stringMatching(/^w1 .* w30 $/) },
      ]);
      expect((await http().get(`/api/chats/${chatId}`).set(env.session.headers)).body.activeTurn).toBeNull();
    },
    withWorkerStarts(2),
  );

  it(
    'SIGTERM lets the running turn finish before the worker exits',
    async () => {
      const { newChat, post } = helpers(env.api, env.session);
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      const worker = await env.spawn({ SHUTDOWN_TIMEOUT_MS: '20000' });
      workers.push(worker);
      const chatId = await newChat();
      const watcher = await openChatSocket(env.api, env.session);
      sockets.push(watcher);
      await watcher.join(chatId);
      const gate = newGate();
      const { turnId } = (await post(chatId, { deltaCount: 15, deltaMs: 5, hold: { afterDeltas: 1, gate } }))
        .body as PostMessageResponse;
      await watcher.waitFor(turnId, 'text.delta');
      worker.kill('SIGTERM');
      // The worker is shutting down while its turn holds; it must still be running when released.
      await worker.stopping;
      expect(worker.child.exitCode ?? worker.child.signalCode).toBeNull();
      openGate(gate);
      await worker.exited;
      await watcher.waitFor(turnId);
      const events = watcher.forTurn(turnId);
      expect(events.at(-1)!.type).toBe('turn.done');
      expect(events.filter((e) => e.type === 'text.delta')).toHaveLength(15);
      expect(events.filter((e) => e.type === 'turn.started')).toHaveLength(1);
    },
    withWorkerStarts(1),
  );
});

describe('Redis restarted while idle', () => {
  let redis: TestRedisServer;
  let env: Awaited<ReturnType<typeof setUp>>;
  let worker: WorkerProcess | undefined;
  let watcher: EventCollector | undefined;

  beforeAll(async () => {
    redis = await startTestRedisServer();
    env = await setUp(redis.url);
    worker = await env.spawn();
  }, withWorkerStarts(1));
  afterAll(async () => {
    watcher?.close();
    await worker?.stop();
    await env?.api.close();
    await env?.db.drop();
    await redis?.stop();
  });

  it('answers 503 and stores nothing while Redis is down; API and worker reconnect and the next turn works', async () => {
    const { http, newChat, post } = helpers(env.api, env.session);
    const chatId = await newChat();
    watcher = await openChatSocket(env.api, env.session);
    await watcher.join(chatId);
    const before = (await post(chatId, { deltas: ['before'] })).body as PostMessageResponse;
    expect((await watcher.waitFor(before.turnId)).type).toBe('turn.done');

    await redis.stop();
    await eventually(
      async () => (await http().get('/api/health')).status === 503,
      5000,
      'health reporting Redis down',
    );
    const health = await http().get('/api/health');
    expect(health.body).toMatchObject({
      status: 'error',
      details: {
        postgres: { status: 'up' },
        redis: { status: 'down', message: 'Redis did not answer PING within 1 s' },
      },
    });
    expect(JSON.stringify(health.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    const rows = async () =>
      Number(
        (
          await env.db.dataSource.query(`SELECT count(*) AS n FROM chat_messages WHERE chat_id = $1`, [
            chatId,
          ])
        )[0].n,
      ) +
      Number(
        (
          await env.db.dataSource.query(`SELECT count(*) AS n FROM chat_turns WHERE chat_id = $1`, [chatId])
        )[0].n,
      );
    const stored = await rows();
    // Bounded by a request timeout rather than timed: a hang fails instead of passing late.
    const down = await post(chatId, { deltas: ['lost'] }).timeout(15_000);
    expect(down.status).toBe(503);
    expect(down.body.message).toMatch(/Redis/);
    expect(await rows()).toBe(stored);
    // Reading history and renaming do not need Redis; the rename's cross-instance notice must
    // not crash the API when it cannot be published. Its failure is logged once its retries are
    // spent: that log line is the moment an unhandled rejection would have surfaced.
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    const warn = jest.spyOn(Logger.prototype, 'warn');
    process.on('unhandledRejection', onUnhandled);
    try {
      expect((await http().get(`/api/chats/${chatId}`).set(env.session.headers)).status).toBe(200);
      expect(
        (await http().patch(`/api/chats/${chatId}`).set(env.session.headers).send({ title: 'during outage' }))
          .status,
      ).toBe(200);
      await eventually(
        () => warn.mock.calls.some(([m]) => String(m).includes('cross-instance broadcast not published')),
        15_000,
        'the rename notice given up',
      );
      // An unhandled rejection is reported after the microtasks of the tick that rejected it.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('unhandledRejection', onUnhandled);
      warn.mockRestore();
    }
    expect(unhandled).toEqual([]);

    await redis.start();
    await eventually(
      async () => (await http().get('/api/health')).status === 200,
      15_000,
      'health reporting Redis up',
    );
    // Events are live pub/sub: wait until the API's subscriber re-subscribed to the thread after
    // the reconnect, or the next turn's events are published to nobody.
    const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await probe.connect();
      const channel = env.keys.chatEvents(chatId);
      await eventually(
        async () => Number(((await probe.pubsub('NUMSUB', channel)) as [string, number])[1]) > 0,
        15_000,
        'the API re-subscribed to the thread',
      );
    } finally {
      probe.disconnect();
    }
    const after = await eventually<PostMessageResponse | null>(
      async () => {
        const res = await post(chatId, { deltas: ['after ', 'restart'] });
        return res.status === 202 ? (res.body as PostMessageResponse) : null;
      },
      10_000,
      'a message accepted after the restart',
    );
    // The same socket, never rejoined: the API re-subscribed by itself.
    expect((await watcher.waitFor(after!.turnId, undefined, 20_000)).type).toBe('turn.done');
    expectGapFree(watcher.forTurn(after!.turnId));
    expect(await rows()).toBe(stored + 3);
  }, 150_000); // above the sum of its waits' bounds
});
