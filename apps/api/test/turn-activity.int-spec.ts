import 'reflect-metadata';
import request from 'supertest';
import type {
  ChatSummaryView,
  PostMessageResponse,
  RunningTurnView,
  TurnActivity,
} from '@corpus-chat/contracts';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { newGate, openGate, scriptedMessage, type TurnScript } from './support/turn-script';
import {
  type ApiInstance,
  type EventCollector,
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
} from './support/chat-harness';
import type { LoginSession } from './support/login';
import { spawnWorkerProcess, WORKER_START_MS, type WorkerProcess } from './support/worker-process';

jest.setTimeout(60_000);

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
