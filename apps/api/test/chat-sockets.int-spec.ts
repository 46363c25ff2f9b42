/**
 * What the chat sockets carry: limits and subscriptions, every page's turn activity, and a turn's
 * trace, one block per area, each on a database, Redis prefix and API of its own. One file, so the
 * API's modules load once (about 5 s of CPU a file).
 */

import 'reflect-metadata';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import {
  type ChatDetailView,
  type ChatSummaryView,
  type JoinChatAck,
  type PostMessageResponse,
  type RunningTurnView,
  SocketEvents,
  type TurnActivity,
} from '@corpus-chat/contracts';
import { createTestDatabase, eventually, type TestDatabase } from '@corpus-chat/persistence/testing';
import { RedisKeys, startTracing } from '@corpus-chat/server-core';
import { SOCKET_RATE_LIMITED, tooManySockets } from '../src/chat/socket-limits';
import {
  type ApiInstance,
  emitWithAck,
  type EventCollector,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import { connectChatSocket, type LoginSession } from './support/login';
import { newGate, openGate, scriptedMessage, type TurnScript } from './support/turn-script';
import { spawnWorkerProcess, WORKER_START_MS, type WorkerProcess } from './support/worker-process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { writeModelSettings } from '@corpus-chat/persistence';
import { corpusPath, importCorpusFiles } from '@corpus-chat/ingest/testing';
// The worker's scripted model server (test-only code): this spec runs the real worker against it.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { ScriptedOpenAiServer, script } from '../../agent-worker/src/agent/testing/scripted-openai-server';

jest.setTimeout(120_000);

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

/**
 * What an operator's pages learn of turns outside the thread they follow: `chat:activity` for every
 * turn of theirs (queue place, start, end with the answer's first line and the thread's unread
 * mark), `chat:thread-updated` when a thread is marked seen, and the Running list over REST. Two
 * API instances of one deployment, one worker process (concurrency 1, scripted runner).
 */
describe('turn activity: unread threads, queue places and ends on every page of the owner', () => {
  let db: TestDatabase;
  let apiA: ApiInstance;
  let apiB: ApiInstance;
  let worker: WorkerProcess;
  let alice: LoginSession;
  let bob: LoginSession;
  const sockets: EventCollector[] = [];

  const http = (api: ApiInstance = apiA) => request(api.app.getHttpServer());
  const socketOf = async (api: ApiInstance, who: LoginSession) => {
    const s = await openChatSocket(api, who);
    sockets.push(s);
    return s;
  };
  const newChat = async (who: LoginSession, title: string): Promise<string> => {
    const res = await http().post('/api/chats').set(who.headers).send({ title });
    expect(res.status).toBe(201);
    return (res.body as ChatSummaryView).id;
  };
  const post = async (
    who: LoginSession,
    chatId: string,
    script: TurnScript,
  ): Promise<PostMessageResponse> => {
    const res = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(who.headers)
      .send({ content: scriptedMessage(script) });
    expect(res.status).toBe(202);
    return res.body as PostMessageResponse;
  };
  /** Waits for the page's first activity of `turnId` matching `match`. */
  const activity = (page: EventCollector, turnId: string, match: (a: TurnActivity) => boolean, ms = 20_000) =>
    page.until(
      () => page.activities.find((a) => a.event.turnId === turnId && match(a)),
      ms,
      () =>
        `turn ${turnId}: got ${page.activities.map((a) => `${a.event.turnId}:${a.event.type}`).join(' ')}`,
    );
  const ended = (turnId: string) => (a: TurnActivity) =>
    a.event.turnId === turnId && ['turn.done', 'turn.error', 'turn.cancelled'].includes(a.event.type);
  const listed = async (who: LoginSession) =>
    (await http().get('/api/chats').set(who.headers)).body as ChatSummaryView[];
  const running = async (who: LoginSession) =>
    (await http(apiB).get('/api/chats/turns/active').set(who.headers).expect(200)).body as RunningTurnView[];

  beforeAll(async () => {
    db = await createTestDatabase();
    const deployment = newDeployment();
    [apiA, apiB, worker] = (await Promise.all([
      startApiInstance({ databaseUrl: db.url, ...deployment }),
      startApiInstance({ databaseUrl: db.url, ...deployment }),
      spawnWorkerProcess({
        databaseUrl: db.url,
        redisPrefix: deployment.redisPrefix,
        env: { WORKER_CONCURRENCY: '1' },
      }),
    ])) as [ApiInstance, ApiInstance, WorkerProcess];
    alice = await signIn(apiA, db.dataSource);
    bob = await signIn(apiA, db.dataSource);
  }, WORKER_START_MS + 60_000);

  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await worker?.stop();
    await Promise.all([apiA?.close(), apiB?.close()]);
    await db?.drop();
  });

  it("sends a waiting turn's place, its start and its end to both of the owner's pages, on either instance, and no one else's", async () => {
    // Two pages of alice, one per instance, following no thread; bob's page on the same instance.
    const [page1, page2, bobPage] = [
      await socketOf(apiA, alice),
      await socketOf(apiB, alice),
      await socketOf(apiA, bob),
    ];
    const chatA = await newChat(alice, 'Thread A');
    const chatB = await newChat(alice, 'Thread B');
    const gate = newGate();
    // B holds the only worker slot, so A waits behind it.
    const first = await post(alice, chatB, { deltas: ['Working', ' on B.'], hold: { afterDeltas: 1, gate } });
    await activity(page2, first.turnId, (a) => a.event.type === 'turn.started');
    // A is held too once it started, so its start is read while it runs (the API reads the thread's
    // entry when the event reaches it, not when it was published).
    const gateA = newGate();
    const second = await post(alice, chatA, {
      deltas: ['There are 7 findings.\n', 'Details follow.'],
      hold: { afterDeltas: 1, gate: gateA },
    });

    const queued = await activity(page2, second.turnId, (a) => a.event.type === 'turn.queued');
    expect(queued.event).toMatchObject({ chatId: chatA, position: 1 });
    expect(queued.thread).toMatchObject({ id: chatA, title: 'Thread A', activeTurn: { status: 'queued' } });
    const list = await running(alice);
    expect(list.map((t) => [t.chatId, t.status, t.queuePosition])).toEqual([
      [chatB, 'running', null],
      [chatA, 'queued', 1],
    ]);
    expect(list[1]).toMatchObject({ title: 'Thread A', startedAt: null, estimatedStartAt: null });
    expect(await running(bob)).toEqual([]);

    openGate(gate);
    const started = await activity(page1, second.turnId, (a) => a.event.type === 'turn.started');
    expect(started.thread).toMatchObject({ activeTurn: { status: 'running' } });
    openGate(gateA);
    for (const page of [page1, page2]) {
      const done = await activity(page, second.turnId, ended(second.turnId));
      expect(done.event.type).toBe('turn.done');
      expect(done.firstLine).toBe('There are 7 findings.');
      expect(done.thread).toMatchObject({ id: chatA, unread: true, activeTurn: null });
    }
    expect(
      (await listed(alice))
        .filter((t) => t.unread)
        .map((t) => t.id)
        .sort(),
    ).toEqual([chatA, chatB].sort());
    expect(await running(alice)).toEqual([]);

    // Bob's own turn reaches his page; nothing of alice's came before it on the same connection.
    const bobChat = await newChat(bob, 'Bob');
    const bobs = await post(bob, bobChat, {});
    await activity(bobPage, bobs.turnId, ended(bobs.turnId));
    expect(new Set(bobPage.activities.map((a) => a.event.chatId))).toEqual(new Set([bobChat]));
    expect(bobPage.threadUpdates.every((u) => u.chatId === bobChat)).toBe(true);
  });

  it('marks a thread seen for every page of its owner; another operator gets 404', async () => {
    const [page1, page2] = [await socketOf(apiA, alice), await socketOf(apiB, alice)];
    const chatId = await newChat(alice, 'Seen me');
    const turn = await post(alice, chatId, { deltas: ['Seen.'] });
    await activity(page2, turn.turnId, ended(turn.turnId));
    expect((await listed(alice)).find((t) => t.id === chatId)?.unread).toBe(true);

    await http().post(`/api/chats/${chatId}/seen`).set(bob.headers).expect(404);
    expect((await listed(alice)).find((t) => t.id === chatId)?.unread).toBe(true);
    await http(apiB).post(`/api/chats/${chatId}/seen`).set(alice.headers).expect(204);
    for (const page of [page1, page2]) {
      const update = await page.until(
        () => page.threadUpdates.find((u) => u.chatId === chatId && u.thread && !u.thread.unread),
        10_000,
        () => `thread updates: ${JSON.stringify(page.threadUpdates)}`,
      );
      expect(update.thread).toMatchObject({ id: chatId, title: 'Seen me', unread: false });
    }
    expect((await listed(alice)).find((t) => t.id === chatId)?.unread).toBe(false);
    // Deleting it tells the pages the entry is gone.
    await http().delete(`/api/chats/${chatId}`).set(alice.headers).expect(204);
    await page1.until(
      () => page1.threadUpdates.find((u) => u.chatId === chatId && u.thread === null),
      10_000,
      () => 'the deleted thread',
    );
  });

  it('moves a waiting turn up when the one ahead of it is cancelled', async () => {
    const page = await socketOf(apiB, alice);
    const gate = newGate();
    const [busy, first, second] = [
      await newChat(alice, 'busy'),
      await newChat(alice, 'first'),
      await newChat(alice, 'second'),
    ];
    const holding = await post(alice, busy, { deltas: ['Holding', ' on.'], hold: { afterDeltas: 1, gate } });
    await activity(page, holding.turnId, (a) => a.event.type === 'turn.started');
    const ahead = await post(alice, first, {});
    const behind = await post(alice, second, {});
    expect([ahead.queuePosition, behind.queuePosition]).toEqual([1, 2]);

    await http().post(`/api/chats/${first}/turns/${ahead.turnId}/cancel`).set(alice.headers).expect(202);
    const cancelled = await activity(page, ahead.turnId, ended(ahead.turnId));
    expect(cancelled.event.type).toBe('turn.cancelled');
    const moved = await activity(
      page,
      behind.turnId,
      (a) => a.event.type === 'turn.queued' && a.event.position === 1,
    );
    expect(moved.thread).toMatchObject({ id: second, activeTurn: { status: 'queued' } });
    expect((await running(alice)).find((t) => t.turnId === behind.turnId)?.queuePosition).toBe(1);

    openGate(gate);
    await activity(page, behind.turnId, ended(behind.turnId));
  });
});

/** A span as OTLP/HTTP JSON carries it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/**
 * One turn is one trace: the API's request span (exported in this process), and under it the
 * worker process's job, model requests and tool queries, which the worker exports with the real
 * OTLP/HTTP exporter configured by the standard OTEL_* variables to a receiver in this test.
 */
describe('a turn as one OpenTelemetry trace: API → job → model requests and tool queries', () => {
  let db: TestDatabase;
  let api: ApiInstance;
  let worker: WorkerProcess;
  let model: ScriptedOpenAiServer;
  let operator: LoginSession;
  let receiver: http.Server;
  const received: OtlpSpan[] = [];
  const apiSpans = new InMemorySpanExporter();
  let stopTracing: (() => Promise<void>) | null;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const parsed = JSON.parse(body) as {
          resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        };
        for (const r of parsed.resourceSpans) for (const s of r.scopeSpans) received.push(...s.spans);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    stopTracing = startTracing('corpus-chat-api', new SimpleSpanProcessor(apiSpans));
    db = await createTestDatabase();
    await importCorpusFiles(db.dataSource, ['scans/sarif/dd__flawfinder.sarif']);
    model = await ScriptedOpenAiServer.start();
    await writeModelSettings(db.dataSource, {
      backend: 'openai',
      baseUrl: model.baseUrl,
      model: 'scripted-model',
      apiKey: 'sk-test',
    });
    const deployment = newDeployment();
    const port = (receiver.address() as AddressInfo).port;
    [api, worker] = await Promise.all([
      startApiInstance({ databaseUrl: db.url, ...deployment }),
      spawnWorkerProcess({
        databaseUrl: db.url,
        redisPrefix: deployment.redisPrefix,
        env: {
          TEST_AGENT: 'production',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${port}/v1/traces`,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_BSP_SCHEDULE_DELAY: '50',
        },
      }),
    ]);
    operator = await signIn(api, db.dataSource);
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await stopTracing?.();
    await model?.close();
    await db?.drop();
    receiver?.close();
  });

  it('a two-tool turn yields one trace of at least 6 spans, the worker’s under the API’s', async () => {
    model.enqueue(
      script.toolCall('list_all_reports', {}),
      script.toolCall('get_corpus_overview', {}),
      script.text('Here is the overview of the corpus.'),
    );
    const server = () => request(api.app.getHttpServer());
    const chat = await server().post('/api/chats').set(operator.headers).send({});
    const chatId = (chat.body as ChatSummaryView).id;
    const posted = await server()
      .post(`/api/chats/${chatId}/messages`)
      .set(operator.headers)
      .send({ content: 'Give me an overview of the corpus' });
    expect(posted.status).toBe(202);
    const { turnId } = posted.body as PostMessageResponse;
    await eventually(
      async () => {
        const thread = (await server().get(`/api/chats/${chatId}`).set(operator.headers))
          .body as ChatDetailView;
        return thread.messages.find(
          (m) => m.role === 'assistant' && m.turnId === turnId && m.status === 'complete',
        );
      },
      60_000,
      'the answer',
    );
    const [post] = apiSpans.getFinishedSpans().filter((s) => s.name === 'chat.post-message');
    const traceId = post.spanContext().traceId;
    const inTrace = () => received.filter((s) => s.traceId === traceId);
    await eventually(
      async () =>
        inTrace().filter((s) => s.name !== 'turn.run').length >= 5 &&
        inTrace().some((s) => s.name === 'turn.run')
          ? true
          : undefined,
      20_000,
      'the worker’s spans at the receiver',
    );
    const spans = inTrace();
    const run = spans.find((s) => s.name === 'turn.run')!;
    expect(run.parentSpanId).toBe(post.spanContext().spanId);
    expect(spans.filter((s) => s.name === 'model.request')).toHaveLength(3);
    expect(spans.filter((s) => s.name === 'tool.query')).toHaveLength(2);
    for (const s of spans.filter((s) => s !== run)) expect(s.parentSpanId).toBe(run.spanId);
    expect(spans.length + 1).toBeGreaterThanOrEqual(6);
  });

  it('an uploaded report is one trace too: the upload request, then the worker’s import under it', async () => {
    const bytes = fs.readFileSync(corpusPath('scans/zap/dd__juicy2.xml'));
    const upload = await request(api.app.getHttpServer())
      .post('/api/reports/import')
      .set(operator.headers)
      .attach('files', bytes, 'juicy2.xml');
    expect(upload.status).toBe(202);
    const [queued] = apiSpans.getFinishedSpans().filter((s) => s.name === 'import.queue');
    const run = await eventually(
      async () => received.find((s) => s.name === 'import.run' && s.traceId === queued.spanContext().traceId),
      30_000,
      'the import.run span at the receiver',
    );
    expect(run?.parentSpanId).toBe(queued.spanContext().spanId);
  });
});
