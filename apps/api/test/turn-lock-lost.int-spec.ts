import 'reflect-metadata';
import request from 'supertest';
import type { ChatEventOf, ChatSummaryView, PostMessageResponse } from '@corpus-chat/contracts';
import { createTestDatabase } from '@corpus-chat/persistence/testing';
import {
  newDeployment,
  openChatSocket,
  signIn,
  startApiInstance,
  type EventCollector,
} from './support/chat-harness';
import { newGate, openGate, scriptedMessage } from './support/turn-script';
import { spawnWorkerProcess, WORKER_START_MS, type WorkerProcess } from './support/worker-process';

jest.setTimeout(2 * WORKER_START_MS + 90_000);

/** Rejects after `ms` naming `what`, else resolves with `promise`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
    ),
  ]).finally(() => clearTimeout(timer));
}

/**
 * A worker whose event loop stalls past its job lock: BullMQ's stalled check gives the turn to
 * another worker. The stalled one must stop once it runs again, so the turn runs to its end once.
 */
describe('a turn whose worker lost its job lock', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let api: Awaited<ReturnType<typeof startApiInstance>>;
  let watcher: EventCollector;
  let headers: Record<string, string>;
  const deployment = newDeployment();
  const workers: WorkerProcess[] = [];
  /** A worker with short locks, so a stall of a few seconds loses the lock. */
  const spawn = async () => {
    const worker = await spawnWorkerProcess({
      databaseUrl: db.url,
      redisPrefix: deployment.redisPrefix,
      env: { LOCK_DURATION_MS: '2000', STALLED_INTERVAL_MS: '1000' },
    });
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApiInstance({ databaseUrl: db.url, ...deployment });
    const session = await signIn(api, db.dataSource);
    headers = session.headers;
    watcher = await openChatSocket(api, session);
  });
  afterAll(async () => {
    watcher?.close();
    await Promise.all(workers.map((w) => w.stop()));
    await api?.close();
    await db?.drop();
  });

  it('stops on the stalled worker as soon as its loop runs again; the other worker stores the one answer', async () => {
    const http = () => request(api.app.getHttpServer());
    const stalled = await spawn();
    const chatId = ((await http().post('/api/chats').set(headers).send({})).body as ChatSummaryView).id;
    await watcher.join(chatId);
    const stallGate = newGate();
    const holdGate = newGate();
    const script = {
      deltaCount: 6,
      deltaMs: 5,
      stall: { afterDeltas: 1, gate: stallGate },
      hold: { afterDeltas: 2, gate: holdGate },
    };
    const { turnId } = (
      await http()
        .post(`/api/chats/${chatId}/messages`)
        .set(headers)
        .send({ content: scriptedMessage(script) })
    ).body as PostMessageResponse;
    await watcher.waitFor(turnId, 'text.delta'); // the first delta went out; then its loop stalls

    // Another worker takes the job once the stalled one's lock expired, and holds at delta 2.
    const taker = await spawn();
    await watcher.waitFor(turnId, { count: 4 }, 60_000); // queued, started, delta, started again
    const started = watcher
      .forTurn(turnId)
      .filter((e) => e.type === 'turn.started') as ChatEventOf<'turn.started'>[];
    expect(started.map((e) => [e.workerId, e.attempt])).toEqual([
      [stalled.workerId, 1],
      [taker.workerId, 2],
    ]);

    // The stalled worker runs again: it must give the turn up instead of going on with it.
    openGate(stallGate);
    expect(await within(stalled.runEnded(turnId), 20_000, 'the stalled run ending')).toBe('aborted');

    openGate(holdGate);
    await watcher.waitFor(turnId, 'turn.done', 30_000);
    const endings = watcher
      .forTurn(turnId)
      .filter((e) => ['turn.done', 'turn.error', 'turn.cancelled'].includes(e.type));
    expect(endings.map((e) => e.type)).toEqual(['turn.done']);
    const answers = await db.dataSource.query(
      `SELECT status, content, metadata->>'attempt' AS attempt FROM chat_messages WHERE turn_id = $1 AND role = 'assistant'`,
      [turnId],
    );
    expect(answers).toEqual([{ status: 'complete', content: 'w1 w2 w3 w4 w5 w6 ', attempt: '2' }]);
  });
});
