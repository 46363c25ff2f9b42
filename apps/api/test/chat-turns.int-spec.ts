/**
 * Chat turns from the API through BullMQ to a worker and back over Socket.IO, one block per area,
 * each on a database, Redis prefix and API of its own. One file, so the API's modules load once
 * (about 5 s of CPU a file).
 */

import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { getQueueToken } from '@nestjs/bullmq';
import { type Queue, QueueEvents } from 'bullmq';
import {
  type CancelTurnResponse,
  CHAT_TURNS_QUEUE,
  type ChatDetailView,
  type ChatEventOf,
  type ChatSummaryView,
  MAX_MESSAGE_CHARS,
  type OperatorLanguage,
  type PostMessageResponse,
  type RunTurnJobData,
  SocketEvents,
  TRUNCATION_MARK,
} from '@corpus-chat/contracts';
import {
  createTestDatabase,
  eventually,
  markTestTurnRunning,
  storeTestTurn,
  type TestDatabase,
} from '@corpus-chat/persistence/testing';
import { newGate, openGate, scriptedMessage, type TurnScript } from './support/turn-script';
import {
  type ApiInstance,
  emitWithAck,
  type EventCollector,
  expectGapFree,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import type { LoginSession } from './support/login';
import { spawnWorkerProcess, WORKER_START_MS, type WorkerProcess } from './support/worker-process';
import { Redis } from 'ioredis';
import { RedisKeys, redisOptionsFromUrl } from '@corpus-chat/server-core';
import { TurnDispatcher } from '../src/chat/turn-dispatcher';
import { JobSweeper } from '../src/jobs/job-sweeper';
import { searchFindings } from '@corpus-chat/corpus-queries';
import { importCorpusFiles } from '@corpus-chat/ingest/testing';

/**
 * The turn pipeline end to end: two API instances of one deployment, two agent-worker processes
 * (concurrency 1 each, scripted runner), real Postgres and Redis, socket.io-client.
 */
describe('chat turns: API → BullMQ → worker → Redis → Socket.IO', () => {
  let db: TestDatabase;
  let apiA: ApiInstance;
  let apiB: ApiInstance;
  let workers: WorkerProcess[] = [];
  let alice: LoginSession;
  let bob: LoginSession;
  const sockets: EventCollector[] = [];

  const socketOf = async (api: ApiInstance, who: LoginSession) => {
    const s = await openChatSocket(api, who);
    sockets.push(s);
    return s;
  };
  const http = (api: ApiInstance = apiA) => request(api.app.getHttpServer());
  const newChat = async (who: LoginSession = alice): Promise<string> => {
    const res = await http().post('/api/chats').set(who.headers).send({});
    expect(res.status).toBe(201);
    return (res.body as ChatSummaryView).id;
  };
  const post = async (chatId: string, script: TurnScript, extra: Record<string, unknown> = {}, query = '') =>
    http()
      .post(`/api/chats/${chatId}/messages${query}`)
      .set(alice.headers)
      .send({ content: scriptedMessage(script), ...extra });
  const postOk = async (chatId: string, script: TurnScript): Promise<PostMessageResponse> => {
    const res = await post(chatId, script);
    expect(res.status).toBe(202);
    return res.body as PostMessageResponse;
  };
  const count = async (sql: string, params: unknown[]) =>
    Number((await db.dataSource.query(sql, params))[0].n);

  beforeAll(async () => {
    db = await createTestDatabase();
    const deployment = newDeployment();
    [apiA, apiB, ...workers] = (await Promise.all([
      startApiInstance({ databaseUrl: db.url, ...deployment }),
      startApiInstance({ databaseUrl: db.url, ...deployment }),
      spawnWorkerProcess({
        databaseUrl: db.url,
        redisPrefix: deployment.redisPrefix,
        env: { WORKER_CONCURRENCY: '1' },
      }),
      spawnWorkerProcess({
        databaseUrl: db.url,
        redisPrefix: deployment.redisPrefix,
        env: { WORKER_CONCURRENCY: '1' },
      }),
    ])) as [ApiInstance, ApiInstance, ...WorkerProcess[]];
    alice = await signIn(apiA, db.dataSource);
    bob = await signIn(apiA, db.dataSource);
    // Above the worker's own start-up bound: on a loaded host the two start-ups share two cores.
  }, WORKER_START_MS + 60_000);

  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all([apiA?.close(), apiB?.close()]);
    await db?.drop();
  });

  it('streams queued → started → tool → deltas → done in order and gap-free to a socket on the other instance; the thread holds both messages', async () => {
    const chatId = await newChat();
    const watcher = await socketOf(apiB, alice); // connected to instance B, the POST goes to A
    expect(await watcher.join(chatId)).toEqual({ ok: true, activeTurn: null });
    const res = await post(
      chatId,
      { tool: true, deltas: ['There ', 'are ', '7 findings.'] },
      { content: 'How many findings? [[script {"tool":true,"deltas":["There ","are ","7 findings."]}]]' },
    );
    expect(res.status).toBe(202);
    const posted = res.body as PostMessageResponse;
    expect(posted).toMatchObject({
      turnId: expect.any(String),
      messageId: expect.any(String),
      queuePosition: 1,
      truncated: false,
    });

    const done = (await watcher.waitFor(posted.turnId, 'turn.done')) as ChatEventOf<'turn.done'>;
    const events = watcher.forTurn(posted.turnId);
    expectGapFree(events);
    expect(events.map((e) => e.type)).toEqual([
      'turn.queued',
      'turn.started',
      'tool.call',
      'tool.result',
      'text.delta',
      'text.delta',
      'text.delta',
      'turn.done',
    ]);
    expect(events[1]).toMatchObject({ attempt: 1, workerId: expect.stringMatching(/^test-worker-/) });
    expect(events.every((e) => e.chatId === chatId && typeof e.at === 'string')).toBe(true);

    const thread = (await http(apiB).get(`/api/chats/${chatId}`).set(alice.headers)).body as ChatDetailView;
    expect(thread.title).toBe('How many findings? [[script {"tool":true,"deltas":["There…');
    expect(thread.activeTurn).toBeNull();
    expect(thread.messages.map((m) => [m.role, m.status, m.turnId])).toEqual([
      ['user', 'complete', posted.turnId],
      ['assistant', 'complete', posted.turnId],
    ]);
    expect(thread.messages[0].id).toBe(posted.messageId);
    expect(thread.messages[1]).toMatchObject({ id: done.messageId, content: 'There are 7 findings.' });
    expect(thread.messages[1].metadata).toMatchObject({
      toolCalls: [{ name: 'count_findings_by', summary: '3 groups', data: { total: 7 } }],
    });
  });

  it('a reconnect at seq k receives exactly the events after k, and a reload mid-turn sees the active turn', async () => {
    const chatId = await newChat();
    const first = await socketOf(apiA, alice);
    await first.join(chatId);
    // Held after 8 deltas until the second socket has joined: on a loaded host the turn would
    // otherwise end before the reload.
    const gate = newGate();
    const { turnId } = await postOk(chatId, { deltaCount: 30, deltaMs: 5, hold: { afterDeltas: 8, gate } });
    await first.waitFor(turnId, { count: 6 });
    first.close();
    const k = first.forTurn(turnId).at(-1)!.seq;

    const reload = (await http(apiB).get(`/api/chats/${chatId}`).set(alice.headers)).body as ChatDetailView;
    expect(reload.activeTurn).toMatchObject({ turnId, status: 'running' });

    const second = await socketOf(apiB, alice);
    const ack = await second.join(chatId, k);
    expect(ack).toMatchObject({ ok: true, activeTurn: { turnId, status: 'running' } });
    openGate(gate);
    await second.waitFor(turnId, 'turn.done');
    const resumed = second.forTurn(turnId);
    expect(resumed[0].prev).toBe(k);
    const stitched = [...first.forTurn(turnId), ...resumed];
    expectGapFree(stitched);
    expect(stitched.at(-1)!.type).toBe('turn.done');
    expect(stitched.filter((e) => e.type === 'text.delta')).toHaveLength(30);
  });

  it('cancels a queued turn and a running one: turn.cancelled, the partial text stored as cancelled, the worker free at once', async () => {
    const [busy1, busy2, queuedChat, nextChat] = await Promise.all([
      newChat(),
      newChat(),
      newChat(),
      newChat(),
    ]);
    const watcher = await socketOf(apiA, alice);
    for (const c of [busy1, busy2, queuedChat, nextChat]) await watcher.join(c);
    // Occupy both workers (concurrency 1 each) for a minute: both are cancelled below, and neither
    // may end by itself first, however slow the host (10 s of deltas once did, and the cancel then
    // met a finished job).
    const long = { deltaCount: 1200, deltaMs: 50 };
    const t1 = await postOk(busy1, long);
    const t2 = await postOk(busy2, long);
    await Promise.all([watcher.waitFor(t1.turnId, 'text.delta'), watcher.waitFor(t2.turnId, 'text.delta')]);

    const queued = await postOk(queuedChat, { deltas: ['never'] });
    expect(queued.queuePosition).toBe(1);
    const cancelQueued = await http()
      .post(`/api/chats/${queuedChat}/turns/${queued.turnId}/cancel`)
      .set(alice.headers)
      .send();
    expect(cancelQueued.status).toBe(202);
    expect(cancelQueued.body as CancelTurnResponse).toEqual({ turnId: queued.turnId, state: 'cancelled' });
    const cancelledEvent = (await watcher.waitFor(queued.turnId)) as ChatEventOf<'turn.cancelled'>;
    expect(cancelledEvent.type).toBe('turn.cancelled');
    expect(watcher.forTurn(queued.turnId).map((e) => e.type)).toEqual(['turn.queued', 'turn.cancelled']);

    const next = await postOk(nextChat, { deltas: ['next'] });
    const cancelRunning = await http()
      .post(`/api/chats/${busy1}/turns/${t1.turnId}/cancel`)
      .set(alice.headers)
      .send();
    // The worker watches the cancel key, so it may store the partial answer and complete the job
    // before the API reads the job's state: then the API answers `cancelled`, else `stopping`.
    expect(cancelRunning.body as CancelTurnResponse).toEqual({
      turnId: t1.turnId,
      state: expect.stringMatching(/^(stopping|cancelled)$/),
    });
    const stopped = (await watcher.waitFor(t1.turnId, undefined, 10_000)) as ChatEventOf<'turn.cancelled'>;
    expect(stopped.type).toBe('turn.cancelled');
    await watcher.waitFor(next.turnId, 'turn.started', 10_000);
    // Told by order, not the clock: the next turn got t1's worker while t2 (60 s of deltas) still
    // holds the other one, so the cancel freed it rather than the script running out.
    expect(watcher.forTurn(t2.turnId).map((e) => e.type)).not.toContain('turn.done');

    const running = (await http().get(`/api/chats/${busy1}`).set(alice.headers)).body as ChatDetailView;
    const partial = running.messages.find((m) => m.role === 'assistant')!;
    expect(partial).toMatchObject({ id: stopped.messageId, status: 'cancelled' });
    expect(partial.content).toMatch(/^w1 w2 /);
    const queuedThread = (await http().get(`/api/chats/${queuedChat}`).set(alice.headers))
      .body as ChatDetailView;
    expect(queuedThread.messages.map((m) => [m.role, m.status, m.content])).toEqual([
      ['user', 'complete', expect.any(String)],
      ['assistant', 'cancelled', ''],
    ]);
    await http().post(`/api/chats/${busy2}/turns/${t2.turnId}/cancel`).set(alice.headers).send();
    await watcher.waitFor(t2.turnId);
    await watcher.waitFor(next.turnId);
  });

  it('answers 409 with the active turn to a second message in a busy thread; ifBusy=interrupt cancels it and runs the new one', async () => {
    const chatId = await newChat();
    const watcher = await socketOf(apiA, alice);
    await watcher.join(chatId);
    const first = await postOk(chatId, { deltaCount: 200, deltaMs: 50 });
    await watcher.waitFor(first.turnId, 'text.delta');

    const busy = await post(chatId, { deltas: ['second'] });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ statusCode: 409, activeTurnId: first.turnId });
    expect(busy.body.message).toMatch(/ifBusy=interrupt/);
    const busyOnB = await http(apiB)
      .post(`/api/chats/${chatId}/messages`)
      .set(alice.headers)
      .send({ content: 'other tab' });
    expect(busyOnB.status).toBe(409);

    const interrupt = await post(chatId, { deltas: ['second ', 'answer'] }, {}, '?ifBusy=interrupt');
    expect(interrupt.status).toBe(202);
    const second = interrupt.body as PostMessageResponse;
    expect(second.turnId).not.toBe(first.turnId);
    expect((await watcher.waitFor(first.turnId)).type).toBe('turn.cancelled');
    expect((await watcher.waitFor(second.turnId)).type).toBe('turn.done');
    const thread = (await http().get(`/api/chats/${chatId}`).set(alice.headers)).body as ChatDetailView;
    expect(thread.messages.map((m) => [m.role, m.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'cancelled'],
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
    expect(thread.messages[3].content).toBe('second answer');
  });

  it('deleting a thread with a running turn stops the turn and leaves nothing of the thread', async () => {
    const chatId = await newChat();
    const watcher = await socketOf(apiA, alice);
    await watcher.join(chatId);
    const { turnId } = await postOk(chatId, { deltaCount: 200, deltaMs: 50 });
    await watcher.waitFor(turnId, 'text.delta');
    const res = await http(apiB).delete(`/api/chats/${chatId}`).set(alice.headers);
    expect(res.status).toBe(204);
    expect((await watcher.waitFor(turnId, undefined, 3000)).type).toBe('turn.cancelled');
    const leftovers = async () =>
      (await count(`SELECT count(*) AS n FROM chat_sessions WHERE id = $1`, [chatId])) +
      (await count(`SELECT count(*) AS n FROM chat_turns WHERE chat_id = $1`, [chatId])) +
      (await count(`SELECT count(*) AS n FROM chat_messages WHERE chat_id = $1`, [chatId]));
    expect(await leftovers()).toBe(0);
    // The worker's job ends only after it tried to store the stopped turn: a late write shows now.
    const queue = apiA.app.get<Queue>(getQueueToken(CHAT_TURNS_QUEUE));
    await eventually(
      async () => ['completed', 'failed', 'unknown'].includes(await queue.getJobState(turnId)),
      15_000,
      'the worker let go of the deleted turn',
    );
    expect(await leftovers()).toBe(0);
    expect((await http().get(`/api/chats/${chatId}`).set(alice.headers)).status).toBe(404);
  });

  it('a POST retried with the same clientMessageId (also concurrently) yields one turn and one user message', async () => {
    const chatId = await newChat();
    const clientMessageId = randomUUID();
    const body = { content: scriptedMessage({ deltas: ['once'] }), clientMessageId };
    const send = (api: ApiInstance) =>
      http(api).post(`/api/chats/${chatId}/messages`).set(alice.headers).send(body);
    const watcher = await socketOf(apiA, alice);
    await watcher.join(chatId);
    const concurrent = await Promise.all([send(apiA), send(apiB), send(apiA)]);
    expect(concurrent.map((r) => r.status)).toEqual([202, 202, 202]);
    const turnIds = new Set(concurrent.map((r) => (r.body as PostMessageResponse).turnId));
    const messageIds = new Set(concurrent.map((r) => (r.body as PostMessageResponse).messageId));
    expect(turnIds.size).toBe(1);
    expect(messageIds.size).toBe(1);
    const [turnId] = [...turnIds];
    await watcher.waitFor(turnId, 'turn.done');
    const retried = await send(apiB);
    expect(retried.status).toBe(202);
    expect((retried.body as PostMessageResponse).turnId).toBe(turnId);
    expect(await count(`SELECT count(*) AS n FROM chat_turns WHERE chat_id = $1`, [chatId])).toBe(1);
    expect(
      await count(`SELECT count(*) AS n FROM chat_messages WHERE chat_id = $1 AND role = 'user'`, [chatId]),
    ).toBe(1);
    expect(watcher.forTurn(turnId).filter((e) => e.type === 'turn.started')).toHaveLength(1);
  });

  it('a cancel sent from a second socket of the same operator (another tab) stops the turn', async () => {
    const chatId = await newChat();
    const tab1 = await socketOf(apiA, alice);
    const tab2 = await socketOf(apiB, alice);
    await tab1.join(chatId);
    const { turnId } = await postOk(chatId, { deltaCount: 200, deltaMs: 50 });
    await tab1.waitFor(turnId, 'text.delta');
    const intruder = await socketOf(apiB, bob);
    expect(await emitWithAck(intruder.socket, SocketEvents.cancel, { chatId, turnId })).toEqual({
      ok: false,
      error: 'not found',
    });
    expect(await intruder.join(chatId)).toEqual({ ok: false, error: 'not found' });
    expect(await emitWithAck(tab2.socket, SocketEvents.cancel, { chatId, turnId })).toEqual({ ok: true });
    expect((await tab1.waitFor(turnId, undefined, 2000)).type).toBe('turn.cancelled');
    expect(intruder.events).toHaveLength(0);
    expect((await http().get(`/api/chats/${chatId}`).set(bob.headers)).status).toBe(404);
  });

  it('cuts a message over 100,000 characters at a sentence end and says so', async () => {
    const chatId = await newChat();
    const content = `[[script {"deltas":["ok"]}]] ${'The scanner reported this. '.repeat(4000)}`;
    const res = await http().post(`/api/chats/${chatId}/messages`).set(alice.headers).send({ content });
    expect(res.status).toBe(202);
    expect((res.body as PostMessageResponse).truncated).toBe(true);
    await eventually(async () => {
      const t = (await http().get(`/api/chats/${chatId}`).set(alice.headers)).body as ChatDetailView;
      return t.messages.length === 2;
    });
    const thread = (await http().get(`/api/chats/${chatId}`).set(alice.headers)).body as ChatDetailView;
    const stored = thread.messages[0].content;
    expect(stored.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(stored.endsWith(`this. ${TRUNCATION_MARK}`)).toBe(true);
  });

  it('keeps threads apart: lists, renames, archives, and answers 404 for unknown or foreign threads', async () => {
    const chatId = await newChat();
    const renamed = await http()
      .patch(`/api/chats/${chatId}`)
      .set(alice.headers)
      .send({ title: 'Payment service', archived: true });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: chatId, title: 'Payment service', archived: true });
    const archived = (await http().get('/api/chats?archived=true').set(alice.headers))
      .body as ChatSummaryView[];
    expect(archived.map((c) => c.id)).toEqual([chatId]);
    const active = (await http().get('/api/chats').set(alice.headers)).body as ChatSummaryView[];
    expect(active.map((c) => c.id)).not.toContain(chatId);
    expect((await http().get('/api/chats').set(bob.headers)).body).toEqual([]);
    expect((await http().patch(`/api/chats/${chatId}`).set(bob.headers).send({ title: 'mine' })).status).toBe(
      404,
    );
    expect((await http().delete(`/api/chats/${chatId}`).set(bob.headers)).status).toBe(404);
    expect(
      (await http().post(`/api/chats/${chatId}/messages`).set(bob.headers).send({ content: 'hi' })).status,
    ).toBe(404);
    expect((await http().get(`/api/chats/${randomUUID()}`).set(alice.headers)).status).toBe(404);
    expect(
      (
        await http()
          .post(`/api/chats/${chatId}/messages`)
          .set(alice.headers)
          .send({ content: 'hi', extra: 1 })
      ).status,
    ).toBe(400);
    await eventually(async () => (await http().get('/api/health')).status === 200, 2000, 'health');
  });
});

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

/**
 * The queue position a waiting turn shows is kept current: with no worker running, three turns
 * wait; as the turns ahead are cancelled or picked up, the last one's followers get
 * `turn.queued` with its new position, once per change.
 */
describe('chat turns: queue position while waiting', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let alice: LoginSession;
  let watcher: EventCollector | undefined;

  const http = () => request(api.app.getHttpServer());
  const newChat = async (): Promise<string> => {
    const res = await http().post('/api/chats').set(alice.headers).send({});
    expect(res.status).toBe(201);
    return (res.body as ChatSummaryView).id;
  };
  const post = async (chatId: string): Promise<PostMessageResponse> => {
    const res = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(alice.headers)
      .send({ content: 'How many findings?' });
    expect(res.status).toBe(202);
    return res.body as PostMessageResponse;
  };
  const positionsOf = (turnId: string): number[] =>
    (watcher?.forTurn(turnId) ?? [])
      .filter((e): e is ChatEventOf<'turn.queued'> => e.type === 'turn.queued')
      .map((e) => e.position);
  /** Waits (bounded) until the turn's followers were told `position`. */
  const toldPosition = async (turnId: string, position: number, ms = 10_000): Promise<void> => {
    await watcher!.until(
      () => (positionsOf(turnId).includes(position) ? true : undefined),
      ms,
      () =>
        `turn ${turnId} was not told position ${position} within ${ms} ms; got ${positionsOf(turnId).join(', ')}`,
    );
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({ databaseUrl: db.url, ...newDeployment() });
    alice = await signIn(api, db.dataSource);
  });

  afterAll(async () => {
    watcher?.close();
    await api?.close();
    await db?.drop();
  });

  it('publishes the new position when a turn ahead is cancelled or started, once per change', async () => {
    const chats = [await newChat(), await newChat(), await newChat()];
    const turns: PostMessageResponse[] = [];
    for (const chatId of chats) turns.push(await post(chatId));
    expect(turns.map((t) => t.queuePosition)).toEqual([1, 2, 3]);

    watcher = await openChatSocket(api, alice);
    expect(await watcher.join(chats[2])).toMatchObject({ ok: true, activeTurn: { turnId: turns[2].turnId } });
    await toldPosition(turns[2].turnId, 3);

    // The first turn is cancelled while it waits: the last one moves to 2.
    const cancel = await http()
      .post(`/api/chats/${chats[0]}/turns/${turns[0].turnId}/cancel`)
      .set(alice.headers)
      .send({});
    expect(cancel.body).toMatchObject({ state: 'cancelled' });
    await toldPosition(turns[2].turnId, 2);

    // A worker picks up the second one (as the worker marks it): the last one is next.
    expect(await markTestTurnRunning(db.dataSource, turns[1].turnId, 1, 'test-worker')).toBe(true);
    await toldPosition(turns[2].turnId, 1);

    const events = watcher.forTurn(turns[2].turnId);
    expectGapFree(events);
    expect(positionsOf(turns[2].turnId)).toEqual([3, 2, 1]);
    const stored = await db.dataSource.query(`SELECT queue_position FROM chat_turns WHERE id = $1`, [
      turns[2].turnId,
    ]);
    expect(stored).toEqual([{ queue_position: 1 }]);
  });
});

/**
 * The answer language end to end: the API reads the operator's language when it queues a turn and
 * puts it in the job; a worker process running the real agent (the built-in planner) answers in it,
 * whatever language the question is in. Real Postgres, Redis, BullMQ and worker process.
 */
describe('chat turns in the operator’s language: API → job → worker → planner', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let worker: WorkerProcess;
  let operator: LoginSession;
  let queue: Queue<RunTurnJobData>;
  let criticals: number;

  const http = () => request(api.app.getHttpServer());
  const setLanguage = (language: OperatorLanguage) =>
    db.dataSource.query('UPDATE operators SET language = $1 WHERE id = $2', [language, operator.operator.id]);

  /** Posts `question` in a new thread and resolves with the stored answer once the turn ended. */
  const ask = async (question: string): Promise<{ turnId: string; content: string }> => {
    const chat = await http().post('/api/chats').set(operator.headers).send({});
    expect(chat.status).toBe(201);
    const chatId = (chat.body as ChatSummaryView).id;
    const posted = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(operator.headers)
      .send({ content: question });
    expect(posted.status).toBe(202);
    const { turnId } = posted.body as PostMessageResponse;
    const answer = await eventually(
      async () => {
        const thread = (await http().get(`/api/chats/${chatId}`).set(operator.headers))
          .body as ChatDetailView;
        return thread.activeTurn
          ? undefined
          : thread.messages.find((m) => m.role === 'assistant' && m.turnId === turnId);
      },
      30_000,
      `the answer to "${question}"`,
    );
    expect(answer?.status).toBe('complete');
    return { turnId, content: answer?.content ?? '' };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    expect(
      (
        await importCorpusFiles(db.dataSource, [
          'scans/sarif/dd__flawfinder.sarif',
          'scans/trivy/scb__juice-shop-v12.10.2.json',
        ])
      ).every((o) => o.ok),
    ).toBe(true);
    criticals = (await searchFindings(db.dataSource.manager, { severity: 'critical' })).total;
    const deployment = newDeployment();
    [api, worker] = await Promise.all([
      startApiInstance({ databaseUrl: db.url, ...deployment }),
      spawnWorkerProcess({
        databaseUrl: db.url,
        redisPrefix: deployment.redisPrefix,
        env: { TEST_AGENT: 'production' },
      }),
    ]);
    queue = api.app.get<Queue<RunTurnJobData>>(getQueueToken(CHAT_TURNS_QUEUE));
    operator = await signIn(api, db.dataSource);
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await db?.drop();
  });

  it('answers a Russian operator in Russian, for a Russian or an English question; the job carries the language', async () => {
    expect(criticals).toBeGreaterThan(4); // so the Russian plural below is the "many" or "few" form, not "one"
    await setLanguage('ru');
    const grouped = new Intl.NumberFormat('ru').format(criticals);

    const russian = await ask('Сколько критических находок?');
    expect(russian.content).toMatch(new RegExp(`^\\*\\*${grouped}\\*\\* наход(ки|ок) соответству`));
    expect(russian.content).toContain('серьёзность критическая');
    expect((await queue.getJob(russian.turnId))?.data.language).toBe('ru');

    const english = await ask('How many critical findings are there?');
    expect(english.content).toMatch(new RegExp(`^\\*\\*${grouped}\\*\\* наход(ки|ок) соответству`));
    expect(english.content).not.toMatch(/findings match/);
  });

  it('reads the language when the question is asked: after a switch to English the next answer is English', async () => {
    await setLanguage('ru');
    const before = await ask('Сколько отчётов?');
    expect(before.content).toMatch(/^Всего \*\*2\*\* отчёта/);
    await setLanguage('en');
    const after = await ask('Сколько критических находок?');
    expect(after.content).toMatch(new RegExp(`^\\*\\*${criticals}\\*\\* findings match severity critical`));
    expect(after.content).not.toMatch(/\p{Script=Cyrillic}/u);
    expect((await queue.getJob(after.turnId))?.data.language).toBe('en');
  });
});
