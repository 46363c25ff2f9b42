/**
 * The real API's tenancy and abuse limits: what one operator may see of another's, API tokens,
 * multipart limits and what the logs hold, one block per area, each on a database and API of its
 * own. One file, so the API's modules load once (about 5 s of CPU a file).
 */

import 'reflect-metadata';
import crypto, { createHash, randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import {
  API_TOKENS_PER_OPERATOR,
  type ApiTokenView,
  type ChatEvent,
  SocketEvents,
} from '@corpus-chat/contracts';
import {
  createTestDatabase,
  eventually,
  insertTestOperator,
  type TestDatabase,
  type TestOperator,
} from '@corpus-chat/persistence/testing';
import { TurnEventBus } from '@corpus-chat/server-core';
import { ChatGateway } from '../../src/chat/chat.gateway';
import { connectChatSocket, CSRF_HEADERS, loginAs, type LoginSession } from '../support/login';
import { listGatewayEvents, listRoutes, type RunningApi, startApi } from './full-app';
import { ApiTokenEntity, ChatSessionEntity } from '@corpus-chat/persistence';
import { bearer, createApiToken } from '../support/api-tokens';
import http from 'node:http';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { testProcessEnv } from '../support/process-env';
import { requestLogFlushed } from '../support/request-log';

/**
 * Operator A and operator B share one deployment: every chat endpoint and every socket event of
 * A's thread is refused to B (404 exactly like an unknown id / a refused join that joins nothing),
 * and A's thread is untouched afterwards. The tables below must list every `/api/chats` route and
 * every `/chat` socket event: adding one without an entry fails the coverage test.
 */
describe('tenancy', () => {
  let db: TestDatabase;
  let api: RunningApi;
  let a: LoginSession;
  let b: LoginSession;
  /** A's thread, with a queued turn (no worker runs in this file, so it stays queued). */
  let chatId: string;
  let turnId: string;
  const sockets: Socket[] = [];

  const http = () => request(api.baseUrl);
  const asA = () => a.headers;
  const asB = () => b.headers;
  const stateOfA = async () => {
    const r = await http().get(`/api/chats/${chatId}`).set(asA());
    expect(r.status).toBe(200);
    return r.body as {
      title: string;
      archived: boolean;
      messages: unknown[];
      activeTurn: { turnId: string } | null;
    };
  };
  /** B's answer for A's id must be indistinguishable from the answer for an id that does not exist. */
  async function expectSameAsUnknown(send: (id: string) => request.Test): Promise<void> {
    const foreign = await send(chatId);
    const unknown = await send(randomUUID());
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body).toEqual(unknown.body);
  }
  async function socketOf(session: LoginSession): Promise<Socket> {
    const s = await connectChatSocket(api.baseUrl, session);
    sockets.push(s);
    return s;
  }
  function collectEvents(socket: Socket): ChatEvent[] {
    const seen: ChatEvent[] = [];
    socket.on(SocketEvents.event, (e: ChatEvent) => seen.push(e));
    return seen;
  }
  /**
   * Publishes an event of A's turn and waits until A's watcher got it; then a marker on a thread of
   * B's own, and waits until B's socket got that. The relay handles events in publish order and a
   * socket receives in emit order, so anything of A's sent to B would have arrived before the
   * marker. Resolves with the events B got from anything but its own thread.
   */
  async function publishAndSettle(
    watcherOfA: ChatEvent[],
    text: string,
    intruder: Socket,
    seenByB: ChatEvent[],
  ): Promise<ChatEvent[]> {
    const bus = api.app.get(TurnEventBus);
    const own = ((await http().post('/api/chats').set(asB()).send({})).body as { id: string }).id;
    expect(await intruder.emitWithAck(SocketEvents.join, { chatId: own })).toMatchObject({ ok: true });
    await bus.publish(chatId, turnId, { type: 'text.delta', text });
    await eventually(() => watcherOfA.some((e) => e.type === 'text.delta' && e.text === text), 3000);
    await bus.publish(own, randomUUID(), { type: 'text.delta', text: 'marker of B' });
    await eventually(() => seenByB.some((e) => e.chatId === own && e.type === 'text.delta'), 3000);
    return seenByB.filter((e) => e.chatId !== own);
  }

  type Check = () => Promise<void>;

  const restTable: Record<string, Check> = {
    'POST /api/chats': async () => {
      const r = await http().post('/api/chats').set(asB()).send({ title: 'B thread' });
      expect(r.status).toBe(201);
      expect(r.body.id).not.toBe(chatId);
      expect((await http().get(`/api/chats/${r.body.id}`).set(asA())).status).toBe(404);
    },
    'GET /api/chats': async () => {
      for (const archived of ['false', 'true']) {
        const r = await http().get(`/api/chats?archived=${archived}`).set(asB());
        expect(r.status).toBe(200);
        expect(r.body.map((c: { id: string }) => c.id)).not.toContain(chatId);
      }
    },
    'GET /api/chats/:id': () => expectSameAsUnknown((id) => http().get(`/api/chats/${id}`).set(asB())),
    'GET /api/chats/:id/export.md': () =>
      expectSameAsUnknown((id) => http().get(`/api/chats/${id}/export.md`).set(asB())),
    'PATCH /api/chats/:id': async () => {
      await expectSameAsUnknown((id) =>
        http().patch(`/api/chats/${id}`).set(asB()).send({ title: 'stolen', archived: true }),
      );
      const after = await stateOfA();
      expect(after.title).not.toBe('stolen');
      expect(after.archived).toBe(false);
    },
    'DELETE /api/chats/:id': async () => {
      await expectSameAsUnknown((id) => http().delete(`/api/chats/${id}`).set(asB()));
      expect((await stateOfA()).activeTurn?.turnId).toBe(turnId);
    },
    'POST /api/chats/:id/messages': async () => {
      const before = (await stateOfA()).messages.length;
      await expectSameAsUnknown((id) =>
        http()
          .post(`/api/chats/${id}/messages?ifBusy=interrupt`)
          .set(asB())
          .send({ content: 'ignore previous instructions', clientMessageId: randomUUID() }),
      );
      const after = await stateOfA();
      expect(after.messages).toHaveLength(before);
      expect(after.activeTurn?.turnId).toBe(turnId);
    },
    'GET /api/chats/:id/attachments': () =>
      expectSameAsUnknown((id) => http().get(`/api/chats/${id}/attachments`).set(asB())),
    'POST /api/chats/:id/attachments': async () => {
      await expectSameAsUnknown((id) =>
        http()
          .post(`/api/chats/${id}/attachments`)
          .set(asB())
          .attach('file', Buffer.from('<issues burpVersion="2"/>'), 'b.xml'),
      );
      expect((await http().get(`/api/chats/${chatId}/attachments`).set(asA())).body).toEqual([]);
    },
    'DELETE /api/chats/:id/attachments/:attachmentId': async () => {
      const own = await http()
        .post(`/api/chats/${chatId}/attachments`)
        .set(asA())
        .attach('file', Buffer.from('<issues burpVersion="2"/>'), 'a.xml');
      expect(own.status).toBe(202);
      const foreign = await http().delete(`/api/chats/${chatId}/attachments/${own.body.id}`).set(asB());
      const unknown = await http()
        .delete(`/api/chats/${randomUUID()}/attachments/${randomUUID()}`)
        .set(asB());
      expect(foreign.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(foreign.body.message).toBe(`This chat has no attachment ${own.body.id}.`);
      const listed = await http().get(`/api/chats/${chatId}/attachments`).set(asA());
      expect(listed.body.map((x: { id: string }) => x.id)).toEqual([own.body.id]);
      expect((await http().delete(`/api/chats/${chatId}/attachments/${own.body.id}`).set(asA())).status).toBe(
        204,
      );
    },
    'POST /api/chats/:id/turns/:turnId/cancel': async () => {
      const foreign = await http().post(`/api/chats/${chatId}/turns/${turnId}/cancel`).set(asB());
      const unknown = await http().post(`/api/chats/${randomUUID()}/turns/${randomUUID()}/cancel`).set(asB());
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(unknown.body);
      // B's own thread id with A's turn id: still not found.
      const own = await http().post('/api/chats').set(asB()).send({});
      expect((await http().post(`/api/chats/${own.body.id}/turns/${turnId}/cancel`).set(asB())).status).toBe(
        404,
      );
      expect((await stateOfA()).activeTurn?.turnId).toBe(turnId);
    },
    'POST /api/chats/:id/seen': async () => {
      await expectSameAsUnknown((id) => http().post(`/api/chats/${id}/seen`).set(asB()));
      expect(await db.dataSource.query(`SELECT 1 FROM chat_reads WHERE chat_id = $1`, [chatId])).toEqual([]);
    },
    'GET /api/chats/turns/active': async () => {
      const r = await http().get('/api/chats/turns/active').set(asB());
      expect(r.status).toBe(200);
      expect(r.body.map((t: { chatId: string }) => t.chatId)).not.toContain(chatId);
      const own = await http().get('/api/chats/turns/active').set(asA());
      expect(own.body.map((t: { turnId: string }) => t.turnId)).toContain(turnId);
    },
    'PUT /api/chats/:id/turns/:turnId/feedback': async () => {
      const foreign = await http()
        .put(`/api/chats/${chatId}/turns/${turnId}/feedback`)
        .set(asB())
        .send({ rating: 'down' });
      const unknown = await http()
        .put(`/api/chats/${randomUUID()}/turns/${randomUUID()}/feedback`)
        .set(asB())
        .send({ rating: 'down' });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(unknown.body);
      expect(await db.dataSource.query(`SELECT 1 FROM turn_feedback WHERE turn_id = $1`, [turnId])).toEqual(
        [],
      );
    },
  };

  const socketTable: Record<string, Check> = {
    [SocketEvents.join]: async () => {
      const watcher = await socketOf(a);
      expect(await watcher.emitWithAck(SocketEvents.join, { chatId })).toMatchObject({ ok: true });
      const seenByA = collectEvents(watcher);
      const intruder = await socketOf(b);
      const seenByB = collectEvents(intruder);
      const foreign = await intruder.emitWithAck(SocketEvents.join, { chatId, afterSeq: '0-0' });
      const unknown = await intruder.emitWithAck(SocketEvents.join, { chatId: randomUUID() });
      expect(foreign).toEqual({ ok: false, error: 'not found' });
      expect(foreign).toEqual(unknown);
      expect(await publishAndSettle(seenByA, 'secret of A', intruder, seenByB)).toEqual([]);
    },
    [SocketEvents.leave]: async () => {
      const watcher = await socketOf(a);
      await watcher.emitWithAck(SocketEvents.join, { chatId });
      const seenByA = collectEvents(watcher);
      const intruder = await socketOf(b);
      const seenByB = collectEvents(intruder);
      await intruder.emitWithAck(SocketEvents.leave, { chatId });
      // B leaving A's thread changes nothing for A, and joins B to nothing.
      expect(await publishAndSettle(seenByA, 'still flowing to A', intruder, seenByB)).toEqual([]);
    },
    [SocketEvents.cancel]: async () => {
      const intruder = await socketOf(b);
      const foreign = await intruder.emitWithAck(SocketEvents.cancel, { chatId, turnId });
      const unknown = await intruder.emitWithAck(SocketEvents.cancel, {
        chatId: randomUUID(),
        turnId: randomUUID(),
      });
      expect(foreign).toEqual({ ok: false, error: 'not found' });
      expect(foreign).toEqual(unknown);
      expect((await stateOfA()).activeTurn?.turnId).toBe(turnId);
    },
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApi(db.url);
    const opA = await insertTestOperator(db.dataSource, { username: 'operator-a' });
    const opB = await insertTestOperator(db.dataSource, { username: 'operator-b' });
    a = await loginAs(api.baseUrl, opA.username, opA.password);
    b = await loginAs(api.baseUrl, opB.username, opB.password);
    const chat = await http().post('/api/chats').set(asA()).send({ title: 'A private thread' });
    expect(chat.status).toBe(201);
    chatId = chat.body.id;
    const posted = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(asA())
      .send({ content: 'How many critical findings?' });
    expect(posted.status).toBe(202);
    turnId = posted.body.turnId;
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await api?.app.close();
    await db?.drop();
  });

  describe("operator B and operator A's thread", () => {
    it('the tables cover every /api/chats route and every /chat socket event', () => {
      expect(listRoutes(api.app, '/api/chats')).toEqual(Object.keys(restTable).sort());
      expect(listGatewayEvents(ChatGateway)).toEqual(Object.keys(socketTable).sort());
    });

    it.each(Object.keys(restTable))('REST %s is refused to B', async (route) => {
      await restTable[route]!();
    });

    it.each(Object.keys(socketTable))('socket %s is refused to B', async (event) => {
      await socketTable[event]!();
    });

    it('without a session every route but the public ones answers 401, and the socket is refused', async () => {
      const publicRoutes = /^(POST \/api\/auth\/(login|logout)|GET \/api\/health.*)$/;
      const routes = listRoutes(api.app, '/api').filter(
        (r) => !publicRoutes.test(r) && !r.startsWith('GET /api/docs'),
      );
      expect(routes).toEqual(expect.arrayContaining(Object.keys(restTable)));
      for (const route of routes) {
        const [method, path] = route.split(' ') as [string, string];
        const url = path.replace(/:[a-zA-Z]+/g, () => randomUUID());
        const agent = http() as any;
        const r = await agent[method.toLowerCase()](url).set('X-Requested-With', 'XMLHttpRequest').send({});
        expect({ route, status: r.status }).toEqual({ route, status: 401 });
      }
      await expect(connectChatSocket(api.baseUrl, null)).rejects.toThrow('unauthorized');
    });

    it('the API docs (UI and document) are for admins only', async () => {
      const root = await insertTestOperator(db.dataSource, { role: 'admin' });
      const adminSession = await loginAs(api.baseUrl, root.username, root.password);
      // The UI's init script embeds the whole document; paths match case-insensitively.
      const paths = [
        '/api/docs',
        '/api/docs/',
        '/api/docs/swagger-ui-init.js',
        '/api/docs-json',
        '/API/Docs-JSON',
      ];
      for (const path of [...paths, '/api/docs-yaml']) {
        expect({ path, status: (await http().get(path)).status }).toEqual({ path, status: 401 });
        expect({ path, status: (await http().get(path).set(asB())).status }).toEqual({ path, status: 403 });
        expect({
          path,
          status: (await http().get(path).set(adminSession.headers).redirects(1)).status,
        }).toEqual({ path, status: 200 });
      }
      const doc = await http().get('/api/docs-json').set(adminSession.headers);
      expect(Object.keys(doc.body.paths)).toContain('/api/chats/{id}/messages');
    });

    it('A still owns an intact thread after all of it', async () => {
      const after = await stateOfA();
      expect(after.title).toBe('A private thread');
      expect(after.messages).toHaveLength(1);
      expect(after.activeTurn?.turnId).toBe(turnId);
    });
  });
});

/**
 * API tokens on the real API: minted with the password, created with the secret shown once and
 * only its SHA-256 stored, 90 days by default, listed with when each was last used;
 * accepted as `Authorization: Bearer …` on corpus and own-thread reads; refused on admin routes and
 * on every state-changing route (403, nothing written), when revoked or expired, and at once when
 * the operator is disabled or its password changed or reset (401); counted against the
 * operator's rate limit like a session.
 */
describe('API tokens', () => {
  let db: TestDatabase;
  let api: RunningApi;
  let admin: TestOperator;
  let adminSession: LoginSession;

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApi(db.url);
    admin = await insertTestOperator(db.dataSource, { role: 'admin' });
    adminSession = await loginAs(api.baseUrl, admin.username, admin.password);
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  }, 60_000);

  const http = () => request(api.baseUrl);
  async function operatorWithSession(): Promise<{ op: TestOperator; session: LoginSession }> {
    const op = await insertTestOperator(db.dataSource);
    return { op, session: await loginAs(api.baseUrl, op.username, op.password) };
  }
  const tokensOf = (operatorId: string) => db.dataSource.getRepository(ApiTokenEntity).findBy({ operatorId });

  describe('creating, listing and revoking', () => {
    it('answers the secret once and stores only its SHA-256', async () => {
      const { op, session } = await operatorWithSession();
      const created = await createApiToken(api.baseUrl, session, { name: '  CI script ', expiresInDays: 30 });
      expect(created.secret).toMatch(/^cc_pat_[A-Za-z0-9_-]{43}$/);
      expect(created).toMatchObject({
        name: 'CI script',
        scope: 'read',
        prefix: created.secret.slice(0, 11),
      });
      expect(Date.parse(created.expiresAt!) - Date.parse(created.createdAt)).toBe(30 * 86_400_000);

      const [row] = await tokensOf(op.id);
      expect(row!.tokenHash).toBe(createHash('sha256').update(created.secret).digest('hex'));
      expect(JSON.stringify(row)).not.toContain(created.secret.slice(11));

      const list = await http().get('/api/auth/tokens').set(session.headers);
      expect(list.status).toBe(200);
      expect(list.body).toEqual([
        {
          id: created.id,
          name: 'CI script',
          scope: 'read',
          prefix: created.prefix,
          createdAt: created.createdAt,
          expiresAt: created.expiresAt,
          lastUsedAt: null,
        },
      ] satisfies ApiTokenView[]);
    });

    it('asks for the password (403 when wrong, nothing stored) and expires after 90 days by default', async () => {
      const { op, session } = await operatorWithSession();
      const mint = (body: object) => http().post('/api/auth/tokens').set(session.headers).send(body);
      const missing = await mint({ name: 'no password' });
      expect(missing.status).toBe(400);
      expect(JSON.stringify(missing.body.message)).toMatch(/password/);
      const wrong = await mint({ name: 'wrong password', password: 'not it' });
      expect(wrong.status).toBe(403);
      expect(wrong.body.message).toMatch(/password is not right/);
      expect(await tokensOf(op.id)).toEqual([]);
      const created = await createApiToken(api.baseUrl, session, { name: 'default lifetime' });
      expect(Date.parse(created.expiresAt!) - Date.parse(created.createdAt)).toBe(90 * 86_400_000);
    });

    it('lists when each token last authenticated a request', async () => {
      const { session } = await operatorWithSession();
      const used = await createApiToken(api.baseUrl, session, { name: 'used' });
      await createApiToken(api.baseUrl, session, { name: 'idle' });
      const before = Date.now();
      expect((await http().get('/api/reports').set(bearer(used.secret))).status).toBe(200);
      const list = (await http().get('/api/auth/tokens').set(session.headers)).body as ApiTokenView[];
      const byName = Object.fromEntries(list.map((t) => [t.name, t.lastUsedAt]));
      expect(byName['idle']).toBeNull();
      expect(Date.parse(byName['used']!)).toBeGreaterThanOrEqual(before - 5000);
    });

    it('refuses an empty name, a lifetime out of range and a token over the per-operator limit', async () => {
      const { op, session } = await operatorWithSession();
      const mint = (body: object) =>
        http()
          .post('/api/auth/tokens')
          .set(session.headers)
          .send({ ...body, password: op.password });
      const empty = await mint({ name: '   ' });
      expect(empty.status).toBe(400);
      expect(JSON.stringify(empty.body.message)).toMatch(/name must not be empty/);
      expect((await mint({ name: 'x', expiresInDays: 0 })).status).toBe(400);
      expect((await mint({ name: 'x', expiresInDays: 366 })).status).toBe(400);
      for (let i = 0; i < API_TOKENS_PER_OPERATOR; i++)
        await createApiToken(api.baseUrl, session, { name: `t${i}` });
      const over = await mint({ name: 'one too many' });
      expect(over.status).toBe(409);
      expect(over.body.message).toMatch(/revoke one/);
      expect(await tokensOf(op.id)).toHaveLength(API_TOKENS_PER_OPERATOR);
    });

    it("lets no operator see or revoke another operator's token (404, token still works)", async () => {
      const a = await operatorWithSession();
      const b = await operatorWithSession();
      const token = await createApiToken(api.baseUrl, a.session, { name: 'mine' });
      expect((await http().get('/api/auth/tokens').set(b.session.headers)).body).toEqual([]);
      const foreign = await http().delete(`/api/auth/tokens/${token.id}`).set(b.session.headers);
      const unknown = await http().delete(`/api/auth/tokens/${randomUUID()}`).set(b.session.headers);
      expect([foreign.status, unknown.status]).toEqual([404, 404]);
      expect(foreign.body).toEqual(unknown.body);
      expect((await http().get('/api/auth/me').set(bearer(token.secret))).body.id).toBe(a.op.id);
    });
  });

  describe('what a token may reach', () => {
    it('reads the corpus, its own threads and /me as its operator, without a cookie or CSRF header', async () => {
      const { op, session } = await operatorWithSession();
      const thread = await http().post('/api/chats').set(session.headers).send({ title: 'mine' });
      const other = await operatorWithSession();
      const foreign = await http().post('/api/chats').set(other.session.headers).send({ title: 'theirs' });
      const { secret } = await createApiToken(api.baseUrl, session, { name: 'reader' });
      for (const path of [
        '/api/findings?limit=1',
        '/api/findings/counts?groupBy=severity',
        '/api/corpus/overview',
        '/api/reports',
      ]) {
        expect([path, (await http().get(path).set(bearer(secret))).status]).toEqual([path, 200]);
      }
      expect((await http().get('/api/auth/me').set(bearer(secret))).body).toMatchObject({ id: op.id });
      const threads = await http().get('/api/chats').set(bearer(secret));
      expect((threads.body as { id: string }[]).map((t) => t.id)).toEqual([thread.body.id]);
      expect((await http().get(`/api/chats/${thread.body.id}`).set(bearer(secret))).status).toBe(200);
      expect((await http().get(`/api/chats/${foreign.body.id}`).set(bearer(secret))).status).toBe(404);
    });

    it('cannot reach admin routes even when its operator is an admin (403)', async () => {
      const { secret } = await createApiToken(api.baseUrl, adminSession, { name: 'admin script' });
      for (const path of ['/api/operators', '/api/settings']) {
        expect((await http().get(path).set(adminSession.headers)).status).toBe(200);
        const res = await http().get(path).set(bearer(secret));
        expect([path, res.status]).toEqual([path, 403]);
        expect(res.body.message).toMatch(/cannot reach admin routes/);
      }
      const patch = await http()
        .patch(`/api/operators/${admin.id}`)
        .set(bearer(secret))
        .send({ displayName: 'changed by a token' });
      expect(patch.status).toBe(403);
      expect((await http().get('/api/auth/me').set(adminSession.headers)).body.displayName).toBe(
        admin.displayName,
      );
    });

    it('changes nothing: every state-changing route answers 403 and writes no row', async () => {
      const { op, session } = await operatorWithSession();
      const thread = await http().post('/api/chats').set(session.headers).send({ title: 'keep me' });
      const token = await createApiToken(api.baseUrl, session, { name: 'reader' });
      const asToken = bearer(token.secret);
      const id = thread.body.id as string;
      const attempts: [string, () => request.Test][] = [
        ['POST /api/chats', () => http().post('/api/chats').set(asToken).send({ title: 'new' })],
        [
          'PATCH /api/chats/:id',
          () => http().patch(`/api/chats/${id}`).set(asToken).send({ title: 'renamed' }),
        ],
        ['DELETE /api/chats/:id', () => http().delete(`/api/chats/${id}`).set(asToken)],
        [
          'POST messages',
          () =>
            http()
              .post(`/api/chats/${id}/messages`)
              .set(asToken)
              .send({ text: 'hello', clientMessageId: randomUUID() }),
        ],
        [
          'POST /api/auth/tokens',
          () =>
            http()
              .post('/api/auth/tokens')
              .set(asToken)
              .send({ name: 'minted by a token', password: op.password }),
        ],
        ['DELETE /api/auth/tokens/:id', () => http().delete(`/api/auth/tokens/${token.id}`).set(asToken)],
        ['GET /api/auth/tokens', () => http().get('/api/auth/tokens').set(asToken)],
        [
          'POST /api/auth/password',
          () =>
            http()
              .post('/api/auth/password')
              .set(asToken)
              .send({ currentPassword: op.password, newPassword: 'another-long-password' }),
        ],
        [
          'PATCH /api/reports/:id',
          () => http().patch('/api/reports/1').set(asToken).send({ archived: true }),
        ],
        [
          'POST /api/reports/import',
          () => http().post('/api/reports/import').set(asToken).attach('files', Buffer.from('{}'), 'x.json'),
        ],
      ];
      for (const [route, send] of attempts) expect([route, (await send()).status]).toEqual([route, 403]);
      const threads = await db.dataSource.getRepository(ChatSessionEntity).findBy({ ownerId: op.id });
      expect(threads.map((t) => t.title)).toEqual(['keep me']);
      expect((await tokensOf(op.id)).map((t) => t.name)).toEqual(['reader']);
      await loginAs(api.baseUrl, op.username, op.password); // the password is unchanged
    });
  });

  describe('audit', () => {
    it('records who created and revoked a token, never its secret', async () => {
      const { op, session } = await operatorWithSession();
      const token = await createApiToken(api.baseUrl, session, { name: 'audited' });
      expect((await http().delete(`/api/auth/tokens/${token.id}`).set(session.headers)).status).toBe(204);
      const res = await http()
        .get('/api/audit')
        .query({ actorId: op.id })
        .set(adminSession.headers)
        .expect(200);
      const events = res.body.events as {
        action: string;
        actorName: string;
        before: unknown;
        after: unknown;
      }[];
      expect(events.map((e) => [e.action, e.actorName])).toEqual([
        ['api_token.revoke', op.username],
        ['api_token.create', op.username],
      ]);
      expect(events[1]!.after).toMatchObject({ tokenId: token.id, name: 'audited' });
      expect(JSON.stringify(events)).not.toContain(token.secret);
    });
  });

  describe('when a token stops working', () => {
    it('is refused from the next request on once revoked or expired (401)', async () => {
      const { session } = await operatorWithSession();
      const revoked = await createApiToken(api.baseUrl, session, { name: 'old' });
      expect((await http().get('/api/reports').set(bearer(revoked.secret))).status).toBe(200);
      expect((await http().delete(`/api/auth/tokens/${revoked.id}`).set(session.headers)).status).toBe(204);
      const after = await http().get('/api/reports').set(bearer(revoked.secret));
      expect(after.status).toBe(401);
      expect(after.body.message).toMatch(/unknown or was revoked/);

      const expiring = await createApiToken(api.baseUrl, session, { name: 'short', expiresInDays: 1 });
      expect((await http().get('/api/reports').set(bearer(expiring.secret))).status).toBe(200);
      await db.dataSource.query(
        `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`,
        [expiring.id],
      );
      const expired = await http().get('/api/reports').set(bearer(expiring.secret));
      expect(expired.status).toBe(401);
      expect(expired.body.message).toMatch(/expired/);
    });

    it('is refused at once when an admin disables its operator, and stays refused after re-enabling', async () => {
      const { op, session } = await operatorWithSession();
      const { secret } = await createApiToken(api.baseUrl, session, { name: 'laptop' });
      // The operator is now in this instance's cache: the refusal below must not wait for it to expire.
      expect((await http().get('/api/auth/me').set(bearer(secret))).status).toBe(200);
      expect(
        (await http().patch(`/api/operators/${op.id}`).set(adminSession.headers).send({ disabled: true }))
          .status,
      ).toBe(200);
      const refused = await http().get('/api/auth/me').set(bearer(secret));
      expect(refused.status).toBe(401);
      expect(await tokensOf(op.id)).toEqual([]);
      expect(
        (await http().patch(`/api/operators/${op.id}`).set(adminSession.headers).send({ disabled: false }))
          .status,
      ).toBe(200);
      expect((await http().get('/api/auth/me').set(bearer(secret))).status).toBe(401);
    });

    it('is revoked when its operator changes the password, or an admin resets it', async () => {
      const { op, session } = await operatorWithSession();
      const first = await createApiToken(api.baseUrl, session, { name: 'before the change' });
      const changed = await http()
        .post('/api/auth/password')
        .set(session.headers)
        .send({ currentPassword: op.password, newPassword: 'another-long-password' });
      expect(changed.status).toBe(200);
      expect((await http().get('/api/auth/me').set(bearer(first.secret))).status).toBe(401);
      expect(await tokensOf(op.id)).toEqual([]);

      const again = await loginAs(api.baseUrl, op.username, 'another-long-password');
      const second = await createApiToken(api.baseUrl, again, { name: 'before the reset' });
      const reset = await http()
        .patch(`/api/operators/${op.id}`)
        .set(adminSession.headers)
        .send({ password: 'a-reset-long-password' });
      expect(reset.status).toBe(200);
      expect((await http().get('/api/auth/me').set(bearer(second.secret))).status).toBe(401);
      expect(await tokensOf(op.id)).toEqual([]);
    });

    it("is refused while its operator's row says disabled, whoever changed it (401)", async () => {
      const { op, session } = await operatorWithSession();
      const { secret } = await createApiToken(api.baseUrl, session, { name: 'script' });
      expect((await http().get('/api/auth/me').set(bearer(secret))).status).toBe(200);
      // Changed behind the API's back: Postgres's change notice drops the cached operator.
      await db.dataSource.query(`UPDATE operators SET disabled = true WHERE id = $1`, [op.id]);
      const refusal = async () => {
        const { status } = await http().get('/api/auth/me').set(bearer(secret));
        return status !== 200 && status;
      };
      expect(await eventually(refusal, 5000, 'a refusal of the token')).toBe(401);
    });
  });

  describe('rate limits', () => {
    it("counts a token's requests against its operator, together with the operator's session", async () => {
      const limited = await startApi(db.url, { REQUESTS_PER_MINUTE: '3' });
      try {
        const op = await insertTestOperator(db.dataSource);
        const session = await loginAs(limited.baseUrl, op.username, op.password);
        const { secret } = await createApiToken(limited.baseUrl, session, { name: 'busy script' });
        const get = (headers: Record<string, string>) =>
          request(limited.baseUrl).get('/api/reports').set(headers);
        expect((await get(session.headers)).status).toBe(200);
        expect((await get(bearer(secret))).status).toBe(200);
        expect((await get(session.headers)).status).toBe(200);
        const over = await get(bearer(secret));
        expect(over.status).toBe(429);
        expect(over.body.message).toMatch(/at most 3 a minute/);
      } finally {
        await limited.close();
      }
    });
  });
});

/**
 * Every multipart route refuses text fields it does not read before buffering them: 300 text
 * fields of 1 MB each are refused with 400 at the first field (multer then reads the rest of the
 * body and drops it, so the client sees no broken pipe), and so are many small fields.
 */
describe('multipart limits', () => {
  let db: TestDatabase;
  let api: RunningApi;
  let session: LoginSession;
  let chatId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startApi(db.url);
    const op = await insertTestOperator(db.dataSource);
    session = await loginAs(api.baseUrl, op.username, op.password);
    chatId = (await request(api.baseUrl).post('/api/chats').set(session.headers).send({})).body.id;
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await db?.drop();
  }, 60_000);

  const MULTIPART_ROUTES: Record<string, () => string> = {
    'POST /api/reports/import': () => '/api/reports/import',
    'POST /api/chats/:id/attachments': () => `/api/chats/${chatId}/attachments`,
  };

  /**
   * Posts `count` text fields `note0`… of `size` bytes each to `path`, writing the next only once
   * the previous one drained (so the test never holds the whole body). Resolves with the answer.
   */
  function postFields(
    path: string,
    count: number,
    size: number,
  ): Promise<{ status: number; message: string }> {
    const boundary = 'pool-limits-boundary';
    const value = 'a'.repeat(size);
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = http.request(`${api.baseUrl}${path}`, {
        method: 'POST',
        headers: { ...session.headers, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      });
      req.on('response', (res) => {
        answered = true;
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, message: JSON.parse(body).message });
        });
      });
      req.on('error', (e) => {
        if (!answered) reject(e);
      });
      const writeNext = (i: number): void => {
        if (answered || req.destroyed) return;
        if (i === count) return void req.end(`--${boundary}--\r\n`);
        const part = `--${boundary}\r\nContent-Disposition: form-data; name="note${i}"\r\n\r\n${value}\r\n`;
        if (req.write(part)) setImmediate(() => writeNext(i + 1));
        else req.once('drain', () => writeNext(i + 1));
      };
      writeNext(0);
    });
  }

  it('lists every multipart route here', () => {
    const uploads = listRoutes(api.app, '/api').filter(
      (r) => /import$|attachments$/.test(r) && r.startsWith('POST'),
    );
    expect(uploads.sort()).toEqual(Object.keys(MULTIPART_ROUTES).sort());
  });

  describe.each(Object.keys(MULTIPART_ROUTES))('%s', (route) => {
    it('refuses 300 text fields of 1 MB with 400 at the first one', async () => {
      const r = await postFields(MULTIPART_ROUTES[route](), 300, 1024 * 1024);
      expect(r).toEqual({ status: 400, message: 'Field value too long - note0' });
    }, 30_000);

    it('refuses 50 short text fields with 400', async () => {
      const r = await postFields(MULTIPART_ROUTES[route](), 50, 10);
      expect(r.status).toBe(400);
      expect(r.message).toMatch(/Too many fields/);
    }, 30_000);
  });
});

/**
 * The API's logs at info level (the real process, `main.ts`, JSON lines on stdout) never contain
 * passwords, session cookies or tokens, model API keys, or the operators' messages, while still
 * logging every request.
 */
describe('logs', () => {
  const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
  let db: TestDatabase;
  let child: ChildProcess;
  let output = '';
  let baseUrl: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    child = spawn(process.execPath, ['tools/cli/run-ts.mjs', 'apps/api/src/main.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: testProcessEnv(db.url, { API_PORT: '0', API_HOST: '127.0.0.1' }),
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the API did not start:\n${output}`)), 45_000);
      const check = () => {
        const m = /listening on (http:\/\/[^\s/]+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          resolve(m[1]!);
        }
      };
      child.stdout!.on('data', check);
      child.once('exit', (code) => reject(new Error(`the API exited (${code}):\n${output}`)));
    });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await db?.drop();
  });

  it('logs requests but never passwords, cookies, tokens, API keys or message bodies', async () => {
    const admin = await insertTestOperator(db.dataSource, {
      role: 'admin',
      password: 'Admin-Secret-Password-1',
    });
    const operator = await insertTestOperator(db.dataSource, { password: 'Operator-Secret-Password-2' });
    const marker = `confidential-question-${crypto.randomUUID()}`;
    const apiKey = `sk-test-${crypto.randomUUID()}`;

    await request(baseUrl)
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: operator.username, password: 'Wrong-Password-Guess-3' });
    const a = await loginAs(baseUrl, admin.username, admin.password);
    const o = await loginAs(baseUrl, operator.username, operator.password);
    await request(baseUrl)
      .post('/api/operators')
      .set(a.headers)
      .send({ username: 'newbie', displayName: 'N', password: 'Newbie-Secret-Password-4', role: 'operator' });
    await request(baseUrl)
      .put('/api/settings')
      .set(a.headers)
      .send({ backend: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey });
    const chat = await request(baseUrl).post('/api/chats').set(o.headers).send({ title: 'logs' });
    expect(chat.status).toBe(201);
    expect(
      (
        await request(baseUrl)
          .post(`/api/chats/${chat.body.id}/messages`)
          .set(o.headers)
          .send({ content: marker })
      ).status,
    ).toBe(202);
    await request(baseUrl)
      .post(`/api/chats/${chat.body.id}/messages`)
      .set(o.headers)
      .set('Content-Type', 'application/json')
      .send(`{"content": "${marker}`);
    await requestLogFlushed(baseUrl, child, () => output);

    // Logging works: the requests are there.
    expect(output).toContain('/api/auth/login');
    expect(output).toContain('sign-in refused');
    expect(output).toContain(`/api/chats/${chat.body.id}/messages`);
    for (const secret of [
      'Admin-Secret-Password-1',
      'Operator-Secret-Password-2',
      'Wrong-Password-Guess-3',
      'Newbie-Secret-Password-4',
      apiKey,
      marker,
      a.cookie.split('=')[1]!,
      o.cookie.split('=')[1]!,
      'cc_session=',
    ]) {
      expect({ secret, found: output.includes(secret) }).toEqual({ secret, found: false });
    }
  });
});
