/**
 * Flooding: operator A sends 100 messages in 10 s over ten threads. The per-operator limit of turns
 * queued or running answers 429 (without spending the messages-per-minute budget), A never holds more than its share
 * of the workers, and operator B's turn, posted in the middle of the flood, completes while A's
 * turns still hold their slots.
 */
import 'reflect-metadata';
import request from 'supertest';
import {
  createTestDatabase,
  eventually,
  insertTestOperator,
  type TestDatabase,
} from '@corpus-chat/persistence/testing';
import { loginAs, type LoginSession } from '../support/login';
import { type RunningApi, startApi } from './full-app';
import { spawnWorkerProcess, type WorkerProcess } from '../support/worker-process';

jest.setTimeout(90_000);

let db: TestDatabase;
let api: RunningApi;
let worker: WorkerProcess;
let a: LoginSession;
let b: LoginSession;

const script = (s: object, text: string) => `${text} [[script ${JSON.stringify(s)}]]`;
const activeTurnsOf = async (ownerId: string): Promise<number> => {
  const [{ n }] = await db.dataSource.query(
    `SELECT count(*)::int AS n FROM chat_turns t JOIN chat_sessions s ON s.id = t.chat_id WHERE s.owner_id = $1 AND t.status IN ('queued', 'running')`,
    [ownerId],
  );
  return n;
};

beforeAll(async () => {
  db = await createTestDatabase();
  // The defaults: 20 messages a minute, 3 turns queued or running per operator.
  api = await startApi(db.url);
  expect(api.env.MESSAGES_PER_MINUTE).toBe(20);
  expect(api.env.MAX_ACTIVE_TURNS_PER_OPERATOR).toBe(3);
  worker = await spawnWorkerProcess({
    databaseUrl: db.url,
    redisPrefix: api.env.REDIS_PREFIX,
    env: { WORKER_CONCURRENCY: '4' },
  });
  const opA = await insertTestOperator(db.dataSource);
  const opB = await insertTestOperator(db.dataSource);
  a = await loginAs(api.baseUrl, opA.username, opA.password);
  b = await loginAs(api.baseUrl, opB.username, opB.password);
});
afterAll(async () => {
  await worker?.stop();
  await api?.app.close();
  await db?.drop();
});

it("100 messages in 10 s from one operator are throttled with 429 while another operator's turn completes promptly", async () => {
  const http = () => request(api.baseUrl);
  const threadsOfA: string[] = [];
  for (let i = 0; i < 10; i++)
    threadsOfA.push(
      (
        await http()
          .post('/api/chats')
          .set(a.headers)
          .send({ title: `flood ${i}` })
      ).body.id,
    );
  const threadOfB = (await http().post('/api/chats').set(b.headers).send({ title: 'B' })).body.id;

  const statuses: number[] = [];
  const acceptedOfA: { chatId: string; turnId: string }[] = [];
  const messages429: string[] = [];
  let maxActiveOfA = 0;
  let bDoneAfterMs: number | null = null;
  const started = Date.now();
  let floodMidway!: () => void;
  const midFlood = new Promise<void>((r) => (floodMidway = r));
  const flood = (async () => {
    for (let round = 0; round < 10; round++) {
      // 10 concurrent messages per second, each a turn (40 s) that outlasts the test and would hog a
      // worker: whether B waited for one of them to end is then told by order, not by timing.
      const batch = await Promise.all(
        threadsOfA.map((chatId, i) =>
          http()
            .post(`/api/chats/${chatId}/messages`)
            .set(a.headers)
            .send({ content: script({ deltaCount: 400, deltaMs: 100 }, `flood ${round}.${i}`) }),
        ),
      );
      batch.forEach((r, i) => {
        statuses.push(r.status);
        if (r.status === 429) messages429.push(String(r.body.message));
        if (r.status === 202) acceptedOfA.push({ chatId: threadsOfA[i], turnId: r.body.turnId });
      });
      maxActiveOfA = Math.max(maxActiveOfA, await activeTurnsOf(a.operator.id));
      if (round === 2) floodMidway();
      await new Promise((r) => setTimeout(r, Math.max(0, started + (round + 1) * 1000 - Date.now())));
    }
  })();
  const victim = (async () => {
    await midFlood; // B asks once A's first three rounds are in, so A's turns hold every slot
    const posted = await http()
      .post(`/api/chats/${threadOfB}/messages`)
      .set(b.headers)
      .send({ content: script({ deltas: ['B', ' answered'] }, 'B asks') });
    expect(posted.status).toBe(202);
    const postedAt = Date.now();
    const answerOfB = async () =>
      ((await http().get(`/api/chats/${threadOfB}`).set(b.headers)).body.messages ?? []).find(
        (m: { role: string; status: string }) => m.role === 'assistant',
      );
    expect(await eventually(answerOfB, 60_000, "B's answer")).toMatchObject({
      status: 'complete',
      content: 'B answered',
    });
    bDoneAfterMs = Date.now() - postedAt;
  })();
  await Promise.all([flood, victim]);

  expect(statuses).toHaveLength(100);
  expect(new Set(statuses)).toEqual(new Set(statuses.filter((s) => [202, 409, 429].includes(s))));
  const accepted = statuses.filter((s) => s === 202).length;
  const throttled = statuses.filter((s) => s === 429).length;
  // A's turns outlast the flood, so the active-turn limit admits exactly 3; later messages to those
  // three threads meet their running turn (409), the other 70 the limit.
  expect(accepted).toBe(3);
  expect(statuses.filter((s) => s === 409)).toHaveLength(27);
  expect(throttled).toBe(70);
  // Refusals do not spend the message budget (20 a minute): after 97 of them every 429 is still
  // the limit's, not the budget's.
  expect(messages429.length).toBe(throttled);
  expect(messages429.every((m) => /already have 3 turns queued or running/.test(m))).toBe(true);
  expect(maxActiveOfA).toBeLessThanOrEqual(3);
  expect(await activeTurnsOf(a.operator.id)).toBeLessThanOrEqual(3);
  // "Promptly", told by order, not by the clock: A holds at most 3 of the worker's 4 slots, so B's
  // turn ran to its end while every one of A's turns still held its slot.
  expect(bDoneAfterMs).not.toBeNull();
  const [{ n: aEnded }] = await db.dataSource.query(
    `SELECT count(*)::int AS n FROM chat_turns t JOIN chat_sessions c ON c.id = t.chat_id
      WHERE c.owner_id = $1 AND t.finished_at IS NOT NULL`,
    [a.operator.id],
  );
  expect(aEnded).toBe(0);
  // Cancelled so the worker's graceful stop does not wait for them.
  for (const t of acceptedOfA) {
    expect(
      (await http().post(`/api/chats/${t.chatId}/turns/${t.turnId}/cancel`).set(a.headers)).status,
    ).toBeLessThan(300);
  }
});
