import 'reflect-metadata';
import request from 'supertest';
import {
  CSRF_HEADER,
  CSRF_HEADER_VALUE,
  type ChatSummaryView,
  type PostMessageResponse,
} from '@corpus-chat/contracts';
import { createTestDatabase, eventually, insertTestOperator } from '@corpus-chat/persistence/testing';
import { redisHang } from '@corpus-chat/server-core';
import { type ApiInstance, newDeployment, signIn, startApiInstance } from './support/chat-harness';
import type { LoginSession } from './support/login';
import { startTestRedisServer, type TestRedisServer } from './support/redis-server';

jest.setTimeout(60_000);

const REDIS_REQUEST_TIMEOUT_MS = 3000;
/**
 * What a request may take while Redis is hung: one command timeout (the rate limit's or the
 * route's own Redis step, never both), and room for a loaded machine (less than a second timeout).
 */
const BOUND_MS = REDIS_REQUEST_TIMEOUT_MS + 2500;

/** Redis accepts connections but answers nothing (SIGSTOP on a throw-away `redis-server`). */
describe('Redis hung', () => {
  let redis: TestRedisServer;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let api: ApiInstance;
  let session: LoginSession;

  beforeAll(async () => {
    redis = await startTestRedisServer();
    db = await createTestDatabase();
    api = await startApiInstance({
      databaseUrl: db.url,
      ...newDeployment(),
      redisUrl: redis.url,
      env: { REDIS_REQUEST_TIMEOUT_MS: String(REDIS_REQUEST_TIMEOUT_MS) },
    });
    session = await signIn(api, db.dataSource);
  });
  afterAll(async () => {
    redis?.resume();
    await api?.close();
    await db?.drop();
    await redis?.stop();
  });

  const http = () => request(api.app.getHttpServer());
  const turnsOf = async (chatId: string) =>
    (await db.dataSource.query(`SELECT id FROM chat_turns WHERE chat_id = $1`, [chatId])) as { id: string }[];

  it('every route answers within the bound (503 where Redis is needed), and an abandoned post is not stored', async () => {
    const chatId = ((await http().post('/api/chats').set(session.headers).send({})).body as ChatSummaryView)
      .id;
    const other = await insertTestOperator(db.dataSource, { role: 'operator' });
    redis.pause();

    // Postgres-only routes still work: the rate limit gives up on Redis instead of holding them,
    // and a thread read says its live state is unknown.
    const list = await http().get('/api/chats').set(session.headers).timeout(BOUND_MS);
    expect(list.status).toBe(200);
    const read = await http().get(`/api/chats/${chatId}`).set(session.headers).timeout(BOUND_MS);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: chatId, live: 'unknown' });
    const health = await http().get('/api/health').timeout(BOUND_MS);
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ details: { redis: { status: 'down' } } });

    // Routes that need Redis answer 503 with a message a person can act on.
    const login = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADER, CSRF_HEADER_VALUE)
      .send({ username: other.username, password: other.password })
      .timeout(BOUND_MS);
    expect(login.status).toBe(503);
    expect(login.body.message).toMatch(/unavailable right now \(Redis is not reachable\)\. Try again/);
    // The first request after a hang's recheck time pays the rate limit's timeout, and its own
    // Redis step then fails at once instead of waiting a second time.
    await eventually(async () => !redisHang.isHung(redis.url), 15_000, 'the hang recheck time');
    const clientMessageId = '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b';
    const post = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(session.headers)
      .send({ content: 'how many critical findings?', clientMessageId })
      .timeout(BOUND_MS);
    expect(post.status).toBe(503);
    expect(post.body.message).toMatch(/Redis/);
    expect(await turnsOf(chatId)).toEqual([]);

    // Redis answers again, the commands that waited first: the post told "failed" stays unstored,
    // and its retry with the same clientMessageId is accepted (not 409).
    redis.resume();
    await eventually(
      async () => (await http().get('/api/health')).status === 200,
      15_000,
      'Redis answering again',
    );
    expect(await turnsOf(chatId)).toEqual([]);
    const retry = await eventually(
      async () => {
        const r = await http()
          .post(`/api/chats/${chatId}/messages`)
          .set(session.headers)
          .send({ content: 'how many critical findings?', clientMessageId });
        return r.status === 503 ? null : r;
      },
      15_000,
      'the retry answered',
    );
    expect(retry!.status).toBe(202);
    const { turnId } = retry!.body as PostMessageResponse;
    expect(await turnsOf(chatId)).toEqual([{ id: turnId }]);
  });
});
