import 'reflect-metadata';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import request from 'supertest';
import {
  CHAT_TURNS_QUEUE,
  type ChatDetailView,
  type ChatSummaryView,
  type PostMessageResponse,
} from '@corpus-chat/contracts';
import { createTestDatabase, storeTestTurn, type TestDatabase } from '@corpus-chat/persistence/testing';
import { RedisKeys, redisOptionsFromUrl } from '@corpus-chat/server-core';
import { TurnDispatcher } from '../src/chat/turn-dispatcher';
import { JobSweeper } from '../src/jobs/job-sweeper';
import {
  type ApiInstance,
  eventually,
  type EventCollector,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import type { LoginSession } from './support/login';

jest.setTimeout(60_000);

const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/**
 * One turn's life around the queue, with no worker running (jobs stay waiting where the test can
 * see them): commit then enqueue, the undo of a post whose job could not be added, the sweep that
 * re-adds a lost job, the message budget against the active-turn limit, and a deleted thread's
 * Redis keys.
 */
describe('turn lifecycle: commit, then enqueue', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let alice: LoginSession;
  let keys: RedisKeys;
  let redis: Redis;
  let queue: Queue;
  const sockets: EventCollector[] = [];

  const http = (on: ApiInstance = api) => request(on.app.getHttpServer());
  const newChat = async (who: LoginSession = alice, on: ApiInstance = api): Promise<string> => {
    const res = await http(on).post('/api/chats').set(who.headers).send({});
    expect(res.status).toBe(201);
    return (res.body as ChatSummaryView).id;
  };
  const post = (chatId: string, who: LoginSession = alice, on: ApiInstance = api) =>
    http(on).post(`/api/chats/${chatId}/messages`).set(who.headers).send({ content: 'How many findings?' });
  const rows = async (chatId: string) => ({
    turns: Number(
      (await db.dataSource.query(`SELECT count(*) AS n FROM chat_turns WHERE chat_id = $1`, [chatId]))[0].n,
    ),
    messages: Number(
      (await db.dataSource.query(`SELECT count(*) AS n FROM chat_messages WHERE chat_id = $1`, [chatId]))[0]
        .n,
    ),
  });
  const turnKeys = (turnId: string) => [keys.turnEvents(turnId), keys.turnCancel(turnId)];

  beforeAll(async () => {
    db = await createTestDatabase();
    const deployment = newDeployment();
    keys = new RedisKeys(deployment.redisPrefix);
    api = await startApiInstance({ databaseUrl: db.url, ...deployment });
    alice = await signIn(api, db.dataSource);
    redis = new Redis(REDIS_URL);
    queue = api.app.get<Queue>(getQueueToken(CHAT_TURNS_QUEUE));
  });

  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await api?.close();
    await redis?.quit();
    await db?.drop();
  });

  it('adds the job only once the turn is committed: at the moment the job appears, its row is there', async () => {
    const events = new QueueEvents(CHAT_TURNS_QUEUE, {
      connection: redisOptionsFromUrl(REDIS_URL),
      prefix: keys.bullPrefix,
      lastEventId: '0-0',
    });
    const seenAtAdd = new Map<string, Promise<string | null>>();
    // What a worker taking the job at once would read (another connection, committed rows only).
    events.on('added', ({ jobId }) =>
      seenAtAdd.set(
        jobId,
        db.dataSource
          .query(`SELECT status FROM chat_turns WHERE id = $1`, [jobId])
          .then((r: { status: string }[]) => r[0]?.status ?? null),
      ),
    );
    try {
      await events.waitUntilReady();
      const chats = await Promise.all(Array.from({ length: 6 }, () => newChat()));
      const posted = await Promise.all(chats.map((c) => post(c)));
      expect(posted.map((r) => r.status)).toEqual(chats.map(() => 202));
      const turnIds = posted.map((r) => (r.body as PostMessageResponse).turnId);
      await eventually(() => turnIds.every((id) => seenAtAdd.has(id)), 10_000, 'every job added');
      for (const id of turnIds) expect(await seenAtAdd.get(id)).toBe('queued');
      for (const id of turnIds) {
        const job = await queue.getJob(id);
        expect(job?.data).toMatchObject({ turnId: id });
      }
    } finally {
      await events.close();
    }
  });

  it('a job that cannot be added after the commit: 503, the turn and message deleted again, the thread free', async () => {
    const chatId = await newChat();
    const watcher = await openChatSocket(api, alice);
    sockets.push(watcher);
    await watcher.join(chatId);
    const add = jest.spyOn(queue, 'add').mockRejectedValueOnce(new Error('Connection is closed.'));
    try {
      const refused = await post(chatId);
      expect(refused.status).toBe(503);
      expect(refused.body.message).toMatch(/nothing was saved/);
    } finally {
      add.mockRestore();
    }
    expect(await rows(chatId)).toEqual({ turns: 0, messages: 0 });
    // turn.queued had gone out before the add failed; its stream is gone too.
    const [queuedEvent] = watcher.events.filter((e) => e.chatId === chatId);
    expect(queuedEvent?.type).toBe('turn.queued');
    expect(await redis.exists(...turnKeys(queuedEvent!.turnId))).toBe(0);
    const thread = (await http().get(`/api/chats/${chatId}`).set(alice.headers)).body as ChatDetailView;
    expect(thread.activeTurn).toBeNull();

    const next = await post(chatId);
    expect(next.status).toBe(202);
    expect(await queue.getJobState((next.body as PostMessageResponse).turnId)).toBe('waiting');
    expect(await rows(chatId)).toEqual({ turns: 1, messages: 1 });
  });

  it('the sweep re-adds the job of a queued turn left without one, and ends a running turn whose job is gone', async () => {
    const ownerId = alice.operator.id;
    const [lostChat, deadChat, youngChat] = await Promise.all([newChat(), newChat(), newChat()]);
    // A crash between the commit and the enqueue leaves exactly this: rows, no job.
    const lost = await storeTestTurn(db.dataSource, ownerId, lostChat, { content: 'lost before its job' });
    const dead = await storeTestTurn(db.dataSource, ownerId, deadChat, {
      content: 'its worker and job are gone',
    });
    const young = await storeTestTurn(db.dataSource, ownerId, youngChat, {
      content: 'its POST is still enqueueing',
    });
    await db.dataSource.query(`UPDATE chat_turns SET status = 'running', started_at = now() WHERE id = $1`, [
      dead.turnId,
    ]);
    await db.dataSource.query(
      `UPDATE chat_turns SET created_at = now() - interval '1 minute', started_at = started_at - interval '1 minute' WHERE id = ANY($1::uuid[])`,
      [[lost.turnId, dead.turnId]],
    );
    const sweeper = api.app.get(JobSweeper);

    const first = await sweeper.sweep();
    expect(first.get(lost.turnId)).toBe('requeued');
    expect(first.get(dead.turnId)).toBe('ended');
    expect(first.has(young.turnId)).toBe(false);
    const job = await queue.getJob(lost.turnId);
    expect(job?.data).toEqual({
      turnId: lost.turnId,
      chatId: lostChat,
      ownerId,
      userMessageId: lost.userMessageId,
      // The operator's language when the sweep re-adds the job (alice's: the default).
      language: 'en',
    });
    expect(await queue.getJobState(lost.turnId)).toBe('waiting');
    const deadThread = (await http().get(`/api/chats/${deadChat}`).set(alice.headers)).body as ChatDetailView;
    expect(deadThread.activeTurn).toBeNull();
    expect(deadThread.messages.at(-1)).toMatchObject({ role: 'assistant', status: 'error' });
    expect(deadThread.messages.at(-1)!.metadata).toMatchObject({ error: { code: 'WORKER_LOST' } });

    // A second sweep (or another API instance's) finds the job waiting and leaves it.
    expect((await sweeper.sweep()).get(lost.turnId)).toBe('alive');
    expect((await queue.getJobs(['waiting'])).filter((j) => j.id === lost.turnId)).toHaveLength(1);
    // A post into the thread of a turn without a job recovers it as well, then says the thread is busy.
    expect(await queue.remove(lost.turnId)).toBe(1);
    const busy = await post(lostChat);
    expect(busy.status).toBe(409);
    expect(busy.body.activeTurnId).toBe(lost.turnId);
    expect(await queue.getJobState(lost.turnId)).toBe('waiting');
  });

  it('a cancel that finds the job ended reports how the turn ended: by the signal, or otherwise', async () => {
    const ownerId = alice.operator.id;
    const dispatcher = api.app.get(TurnDispatcher);
    // Its worker ended each turn between the cancel signal and the job-state read: no job is left.
    const ended = async (status: 'complete' | 'cancelled') => {
      const turn = await storeTestTurn(db.dataSource, ownerId, await newChat(), { content: status });
      await db.dataSource.query(`UPDATE chat_turns SET status = $2, finished_at = now() WHERE id = $1`, [
        turn.turnId,
        status,
      ]);
      return turn.turnId;
    };
    const done = await ended('complete');
    expect(await dispatcher.cancel(done)).toBe('finished');
    expect(await db.dataSource.query(`SELECT status FROM chat_turns WHERE id = $1`, [done])).toEqual([
      { status: 'complete' },
    ]);
    expect(await dispatcher.cancel(await ended('cancelled'))).toBe('cancelled');
    // Lost by Redis while running: ended here.
    const lost = await storeTestTurn(db.dataSource, ownerId, await newChat(), { content: 'lost' });
    await db.dataSource.query(`UPDATE chat_turns SET status = 'running' WHERE id = $1`, [lost.turnId]);
    expect(await dispatcher.cancel(lost.turnId)).toBe('cancelled');
    expect(await db.dataSource.query(`SELECT status FROM chat_turns WHERE id = $1`, [lost.turnId])).toEqual([
      { status: 'cancelled' },
    ]);
  });

  it('a 429 of the active-turn limit does not use up the message budget', async () => {
    const limited = await startApiInstance({
      databaseUrl: db.url,
      ...newDeployment(),
      env: { MESSAGES_PER_MINUTE: '3', MAX_ACTIVE_TURNS_PER_OPERATOR: '1' },
    });
    try {
      const bob = await signIn(limited, db.dataSource);
      const chats = await Promise.all(Array.from({ length: 4 }, () => newChat(bob, limited)));
      const cancel = async (chatId: string, turnId: string) =>
        expect(
          (await http(limited).post(`/api/chats/${chatId}/turns/${turnId}/cancel`).set(bob.headers).send())
            .body,
        ).toEqual({ turnId, state: 'cancelled' });
      // The budget (3 a minute) is spent one message at a time, with a client retrying in between
      // while its one turn is active: each retry is a 429 of the limit and costs nothing.
      for (let i = 0; i < 3; i++) {
        const accepted = await post(chats[i], bob, limited);
        expect(accepted.status).toBe(202);
        for (let r = 0; r < 5; r++) {
          const retry = await post(chats[3], bob, limited);
          expect(retry.status).toBe(429);
          expect(retry.body.message).toMatch(/queued or running \(the limit per operator\)/);
        }
        await cancel(chats[i], (accepted.body as PostMessageResponse).turnId);
      }
      // Three messages stored this minute: the fourth is over the budget, and says so.
      const over = await post(chats[3], bob, limited);
      expect(over.status).toBe(429);
      expect(over.body.message).toMatch(/sending messages too fast \(at most 3 a minute\)/);
      expect(await rows(chats[3])).toEqual({ turns: 0, messages: 0 });
    } finally {
      await limited.close();
    }
  });

  it('deleting a thread removes its turns’ jobs and Redis keys (streams, cancel flags)', async () => {
    const chatId = await newChat();
    const first = (await post(chatId)).body as PostMessageResponse;
    await http().post(`/api/chats/${chatId}/turns/${first.turnId}/cancel`).set(alice.headers).send();
    const second = (await post(chatId)).body as PostMessageResponse;
    const ids = [first.turnId, second.turnId];
    expect(await redis.exists(keys.turnEvents(first.turnId), keys.turnCancel(first.turnId))).toBe(2);
    expect(await redis.exists(keys.turnEvents(second.turnId))).toBe(1);
    expect(await queue.getJobState(second.turnId)).toBe('waiting');

    const res = await http().delete(`/api/chats/${chatId}`).set(alice.headers);
    expect(res.status).toBe(204);
    for (const id of ids) {
      expect(await redis.exists(...turnKeys(id))).toBe(0);
      expect(await queue.getJob(id)).toBeUndefined();
    }
    // What stays is the small flag that keeps a straggling worker from reopening a turn's stream.
    expect(await redis.ttl(keys.turnEnded(second.turnId))).toBeLessThanOrEqual(600);
    expect(await rows(chatId)).toEqual({ turns: 0, messages: 0 });
  });
});
