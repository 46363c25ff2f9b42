import 'reflect-metadata';
import request from 'supertest';
import {
  type ChatEvent,
  type ChatEventOf,
  type ChatSummaryView,
  compareSeq,
  NO_SEQ,
  type PostMessageResponse,
} from '@corpus-chat/contracts';
import { createTestDatabase, eventually } from '@corpus-chat/persistence/testing';
import { RedisKeys } from '@corpus-chat/server-core';
import { Redis } from 'ioredis';
import { JobSweeper } from '../src/jobs/job-sweeper';
import {
  type EventCollector,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import { startTestRedisServer, type TestRedisServer } from './support/redis-server';
import { newGate, openGate, scriptedMessage, type TurnScript } from './support/turn-script';
import { spawnWorkerProcess, type WorkerProcess } from './support/worker-process';

jest.setTimeout(90_000);

/**
 * Redis restarted empty (docker-compose runs it without persistence) while a turn is running: the
 * real API and a real worker process on a throw-away `redis-server`, stopped and started here.
 */
describe('Redis restarted empty mid-turn', () => {
  let redis: TestRedisServer;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let api: Awaited<ReturnType<typeof startApiInstance>>;
  let worker: WorkerProcess;
  let watcher: EventCollector;
  let keys: RedisKeys;
  let headers: Record<string, string>;

  beforeAll(async () => {
    redis = await startTestRedisServer();
    db = await createTestDatabase();
    const deployment = newDeployment();
    keys = new RedisKeys(deployment.redisPrefix);
    api = await startApiInstance({ databaseUrl: db.url, ...deployment, redisUrl: redis.url });
    const session = await signIn(api, db.dataSource);
    headers = session.headers;
    worker = await spawnWorkerProcess({
      databaseUrl: db.url,
      redisPrefix: deployment.redisPrefix,
      redisUrl: redis.url,
      env: { LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '1000' },
    });
    watcher = await openChatSocket(api, session);
  });
  afterAll(async () => {
    watcher?.close();
    await worker?.stop();
    await api?.close();
    await db?.drop();
    await redis?.stop();
  });

  const http = () => request(api.app.getHttpServer());
  const newChat = async () =>
    ((await http().post('/api/chats').set(headers).send({})).body as ChatSummaryView).id;
  const post = async (chatId: string, script: TurnScript) =>
    (
      await http()
        .post(`/api/chats/${chatId}/messages`)
        .set(headers)
        .send({ content: scriptedMessage(script) })
    ).body as PostMessageResponse;

  /** Waits until the API's subscriber follows the thread again (after Redis came back). */
  async function resubscribed(chatId: string): Promise<void> {
    const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await probe.connect();
      await eventually(
        async () =>
          Number(((await probe.pubsub('NUMSUB', keys.chatEvents(chatId))) as [string, number])[1]) > 0,
        15_000,
        'the API re-subscribed to the thread',
      );
    } finally {
      probe.disconnect();
    }
  }

  it('the socket gets every event published after the restart, the first opening a new chain, seqs only rising', async () => {
    const chatId = await newChat();
    await watcher.join(chatId);
    const gate = newGate();
    const { turnId } = await post(chatId, { deltaCount: 40, deltaMs: 1, hold: { afterDeltas: 7, gate } });
    await watcher.waitFor(turnId, { count: 9 }); // queued, started, 7 deltas: the turn waits at the gate
    const before = watcher.forTurn(turnId).length;

    await redis.stop();
    await redis.start();
    await resubscribed(chatId);
    openGate(gate);

    const done = (await watcher.waitFor(turnId, 'turn.done', 30_000)) as ChatEventOf<'turn.done'>;
    const events = watcher.forTurn(turnId);
    const after = events.slice(before);
    expect(after[0]).toMatchObject({ type: 'text.delta', prev: NO_SEQ });
    expect(after.filter((e) => e.prev === NO_SEQ)).toHaveLength(1);
    // Every delta from the 8th on arrived (none taken for a duplicate), in order, then turn.done.
    expect(after.filter((e) => e.type === 'text.delta')).toHaveLength(33);
    expect(after.at(-1)).toBe(done);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort(compareSeq));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(after.slice(1).every((e, i) => e.prev === after[i].seq)).toBe(true);
    const [answer] = await db.dataSource.query(
      `SELECT status, content FROM chat_messages WHERE turn_id = $1 AND role = 'assistant'`,
      [turnId],
    );
    expect(answer).toEqual({ status: 'complete', content: expect.stringMatching(/^w1 .* w40 $/) });
  });

  const turnRow = async (turnId: string) =>
    (
      (await db.dataSource.query(
        `SELECT t.status, m.status AS answer_status, m.content
           FROM chat_turns t LEFT JOIN chat_messages m ON m.turn_id = t.id AND m.role = 'assistant'
          WHERE t.id = $1`,
        [turnId],
      )) as { status: string; answer_status: string | null; content: string | null }[]
    )[0];

  it('events emitted while Redis is gone are held by the worker and published once it is back; the answer is stored meanwhile', async () => {
    const chatId = await newChat();
    await watcher.join(chatId);
    const gate = newGate();
    const { turnId } = await post(chatId, { deltaCount: 20, deltaMs: 1, hold: { afterDeltas: 2, gate } });
    await watcher.waitFor(turnId, { count: 4 }); // queued, started, 2 deltas: the turn waits at the gate

    // Redis is down while the worker streams the other 18 deltas: they wait in its buffer, and the
    // answer is stored in Postgres without waiting for Redis.
    await redis.stop();
    openGate(gate);
    await eventually(
      async () => (await turnRow(turnId))?.status === 'complete',
      30_000,
      'the answer stored while Redis is down',
    );
    expect(await turnRow(turnId)).toEqual({
      status: 'complete',
      answer_status: 'complete',
      content: Array.from({ length: 20 }, (_, i) => `w${i + 1} `).join(''),
    });

    await redis.start();
    await resubscribed(chatId);
    // Nothing is left for the sweep to end; the held events and turn.done reach the socket.
    expect((await api.app.get(JobSweeper).sweep(0)).get(turnId)).toBeUndefined();
    await watcher.waitFor(turnId, 'turn.done', 30_000);
    const events = watcher.forTurn(turnId);
    expect(events.some((e) => e.type === 'turn.error')).toBe(false);
    const after = events.slice(4);
    expect(after[0]).toMatchObject({ type: 'text.delta', prev: NO_SEQ });
    expect(after.map((e) => (e.type === 'text.delta' ? e.text : e.type)).join('')).toBe(
      Array.from({ length: 18 }, (_, i) => `w${i + 3} `).join('') + 'turn.done',
    );
    expect(after.slice(1).every((e, i) => e.prev === after[i].seq)).toBe(true);
  });

  it('a running turn whose job Redis lost in a restart is left to its worker by the sweep, and ends done', async () => {
    const chatId = await newChat();
    await watcher.join(chatId);
    const gate = newGate();
    const { turnId } = await post(chatId, { deltaCount: 6, deltaMs: 1, hold: { afterDeltas: 2, gate } });
    await watcher.waitFor(turnId, { count: 4 });

    await redis.stop();
    await redis.start();
    await resubscribed(chatId);
    // The job is gone with Redis's data, but the worker still writes the turn's heartbeat.
    const [{ back }] = (await db.dataSource.query(`SELECT now() AS back`)) as { back: Date }[];
    await eventually(
      async () =>
        (
          (await db.dataSource.query(`SELECT alive_at > $2 AS beat FROM chat_turns WHERE id = $1`, [
            turnId,
            back,
          ])) as { beat: boolean }[]
        )[0]?.beat,
      15_000,
      'a heartbeat after the restart',
    );
    expect((await api.app.get(JobSweeper).sweep(0)).get(turnId)).toBe('alive');
    expect((await turnRow(turnId))?.status).toBe('running');

    openGate(gate);
    const done = (await watcher.waitFor(turnId, undefined, 30_000)) as ChatEvent;
    expect(done.type).toBe('turn.done');
    expect(await turnRow(turnId)).toMatchObject({ status: 'complete', answer_status: 'complete' });
  });
});
