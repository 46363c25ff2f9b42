import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import {
  CHAT_TURNS_QUEUE,
  type CancelTurnResponse,
  type ChatDetailView,
  type ChatEventOf,
  type ChatSummaryView,
  MAX_MESSAGE_CHARS,
  type PostMessageResponse,
  SocketEvents,
  TRUNCATION_MARK,
} from '@corpus-chat/contracts';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { newGate, openGate, scriptedMessage, type TurnScript } from './support/turn-script';
import {
  type ApiInstance,
  emitWithAck,
  eventually,
  type EventCollector,
  expectGapFree,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import type { LoginSession } from './support/login';
import { spawnWorkerProcess, WORKER_START_MS, type WorkerProcess } from './support/worker-process';

jest.setTimeout(60_000);
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
