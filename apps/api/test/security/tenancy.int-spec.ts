/**
 * Operator A and operator B share one deployment: every chat endpoint and every socket event of
 * A's thread is refused to B (404 exactly like an unknown id / a refused join that joins nothing),
 * and A's thread is untouched afterwards. The tables below must list every `/api/chats` route and
 * every `/chat` socket event: adding one without an entry fails the coverage test.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import { type ChatEvent, SocketEvents } from '@corpus-chat/contracts';
import { createTestDatabase, insertTestOperator, type TestDatabase } from '@corpus-chat/persistence/testing';
import { TurnEventBus } from '@corpus-chat/server-core';
import { ChatGateway } from '../../src/chat/chat.gateway';
import { connectChatSocket, loginAs, type LoginSession } from '../support/login';
import { listGatewayEvents, listRoutes, type RunningApi, startApi } from './full-app';

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
const until = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};
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
  await until(() => watcherOfA.some((e) => e.type === 'text.delta' && e.text === text));
  await bus.publish(own, randomUUID(), { type: 'text.delta', text: 'marker of B' });
  await until(() => seenByB.some((e) => e.chatId === own && e.type === 'text.delta'));
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
    const unknown = await http().delete(`/api/chats/${randomUUID()}/attachments/${randomUUID()}`).set(asB());
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
    expect(await db.dataSource.query(`SELECT 1 FROM turn_feedback WHERE turn_id = $1`, [turnId])).toEqual([]);
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
