/**
 * Hostile input against every API route and every `/chat` socket event: malformed JSON, wrong
 * types, huge strings, NUL, lone surrogates, RTL marks, odd ids and query strings. Never a 500,
 * never an unhandled rejection, the API still serves afterwards, and a rejected request writes no
 * row anywhere.
 *
 * `npm run test:fuzz` (`FUZZ_FULL=1`) sends every case over every route. Otherwise (`npm test`) a
 * sample of `FUZZ_SAMPLE` cases (default 120) spread evenly over the routes, picked by `FUZZ_SEED`
 * (random when unset); the seed is in the test titles, so a failure names the command replaying it.
 */
import 'reflect-metadata';
import { randomInt, randomUUID } from 'node:crypto';
import request from 'supertest';
import { createTestDatabase, insertTestOperator, type TestDatabase } from '@corpus-chat/persistence/testing';
import { mulberry32 } from '@corpus-chat/ingest/testing';
import { ChatGateway } from '../../src/chat/chat.gateway';
import { connectChatSocket, loginAs, type LoginSession } from '../support/login';
import { listGatewayEvents, listRoutes, type RunningApi, startApi } from './full-app';

let db: TestDatabase;
let api: RunningApi;
let admin: LoginSession;
let operator: LoginSession;
let chatId: string;
let turnId: string;
/** An operator the admin routes are fuzzed against. */
let victimId: string;
const FULL = process.env['FUZZ_FULL'] === '1';
const SEED = process.env['FUZZ_SEED'] ? Number(process.env['FUZZ_SEED']) : randomInt(2 ** 31);
const SAMPLE = Number(process.env['FUZZ_SAMPLE'] ?? 120);
const MODE = FULL
  ? 'every case'
  : `sample of ${SAMPLE}, replay: FUZZ_SEED=${SEED} npx jest ${__filename.slice(__filename.indexOf('apps/'))}`;

const random = mulberry32(SEED);

/** `k` items of `items` in their original order, chosen by the seeded generator (all when FULL). */
function sample<T>(items: T[], k: number): T[] {
  if (FULL || k >= items.length) return items;
  const picked = new Set<number>();
  while (picked.size < k) picked.add(Math.floor(random() * items.length));
  return [...picked].sort((x, y) => x - y).map((i) => items[i]!);
}

const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

/** Row count of every table of the public schema (the whole database's state, cheaply). */
async function snapshot(): Promise<Record<string, number>> {
  const tables: { table_name: string }[] = await db.dataSource.query(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'typeorm_migrations'`,
  );
  const counts: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [{ n }] = await db.dataSource.query(`SELECT count(*)::int AS n FROM "${table_name}"`);
    counts[table_name] = n;
  }
  return counts;
}

const RTL = '\u202Eevil\u202C \u200F\u061C';
const HUGE = 'A'.repeat(300_000);
/** Raw JSON texts (sent as-is with Content-Type: application/json). */
const RAW_BODIES = [
  '{"content": ',
  '{"title": "a",}',
  'null',
  '[]',
  '"just a string"',
  '12345',
  '{"content": "\\ud800"}',
  '{"title": "\\udfff\\ud800", "content": "\\udbff"}',
  '{"__proto__": {"admin": true}, "content": "x"}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  '{"content": "' + 'x'.repeat(1_100_000) + '"}',
];
/** Object bodies: wrong types, NUL, surrogates, RTL, huge values, deep nesting. */
const OBJECT_BODIES: unknown[] = [
  {},
  { content: 42 },
  { content: ['a'] },
  { content: { $gt: '' } },
  { content: 'a\u0000b' },
  { content: '\ud83d' },
  { content: RTL },
  { content: HUGE, clientMessageId: 'not-a-uuid' },
  { content: 'ok', clientMessageId: '\u0000' },
  { title: 'x'.repeat(5000) },
  { title: '\u0000' },
  { title: RTL, archived: 'yes' },
  { archived: 1 },
  { title: null, archived: null },
  { title: null },
  { content: null, clientMessageId: null },
  { displayName: null, password: null, role: null, disabled: null },
  { displayName: null },
  { backend: 'builtin', apiKey: null, baseUrl: null, model: null },
  { username: 'a\u0000', password: 'x' },
  { username: ['admin'], password: { $ne: null } },
  { username: 'x', displayName: RTL, password: 'p'.repeat(10), role: 'root' },
  { username: 'ok-name', displayName: 'D', password: 'long-enough-pw', role: 'admin', extra: 1 },
  { disabled: 'true' },
  { backend: 'openai', baseUrl: 'javascript:alert(1)', model: '\u0000' },
  { backend: 42 },
  { a: { b: { c: { d: { e: { f: { g: { h: { i: { j: { k: 'deep' } } } } } } } } } } },
];
const QUERIES = [
  '',
  '?archived=%00',
  '?archived=true&archived=false',
  '?archived[]=x',
  '?ifBusy=%F0%9F%98',
  '?ifBusy=interrupt&ifBusy=reject',
  `?x=${'y'.repeat(5000)}`,
];

/** A new thread of the operator with a queued turn: the real ids the next route is fuzzed with. */
async function freshThread(): Promise<void> {
  chatId = (
    await request(api.baseUrl).post('/api/chats').set(operator.headers).send({ title: 'fuzz target' })
  ).body.id;
  const posted = await request(api.baseUrl)
    .post(`/api/chats/${chatId}/messages`)
    .set(operator.headers)
    .send({ content: 'first' });
  expect(posted.status).toBe(202);
  turnId = posted.body.turnId;
}

/** Values for a route parameter: the real id (so validation past the id is reached) and garbage. */
function paramValues(path: string, name: string): string[] {
  const real = realValue(path, name);
  return [
    real,
    'not-a-uuid',
    '%00',
    '1',
    '-1',
    encodeURIComponent("' OR 1=1 --"),
    'a'.repeat(2000),
    encodeURIComponent('\u202E') + randomUUID(),
    randomUUID(),
  ];
}

function realValue(path: string, name: string): string {
  if (path.startsWith('/api/operators')) return victimId;
  return name === 'turnId' ? turnId : chatId;
}

function expand(path: string): string[] {
  const names = [...path.matchAll(/:([a-zA-Z]+)/g)].map((m) => m[1]!);
  if (!names.length) return [path];
  const out: string[] = [];
  for (const name of names) {
    for (const v of paramValues(path, name)) {
      // Vary one parameter at a time; the others keep their real value.
      out.push(path.replace(/:([a-zA-Z]+)/g, (_m, n: string) => (n === name ? v : realValue(path, n))));
    }
  }
  return out;
}

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  db = await createTestDatabase();
  api = await startApi(db.url, {
    MESSAGES_PER_MINUTE: '100000',
    REQUESTS_PER_MINUTE: '100000',
    MAX_ACTIVE_TURNS_PER_OPERATOR: '100000',
    SOCKET_EVENTS_PER_SECOND: '10000',
  });
  const root = await insertTestOperator(db.dataSource, { role: 'admin' });
  const op = await insertTestOperator(db.dataSource);
  victimId = (await insertTestOperator(db.dataSource)).id;
  admin = await loginAs(api.baseUrl, root.username, root.password);
  operator = await loginAs(api.baseUrl, op.username, op.password);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await api?.app.close();
  await db?.drop();
});

describe(`hostile input (${MODE})`, () => {
  it('over every route: never a 500, and a rejected request writes no row', async () => {
    // Signing out would end the session the remaining routes are fuzzed with.
    const signOuts = ['POST /api/auth/logout', 'POST /api/auth/logout-everywhere'];
    const routes = listRoutes(api.app, '/api').filter(
      (r) => !r.startsWith('GET /api/docs') && !signOuts.includes(r),
    );
    expect(routes.length).toBeGreaterThanOrEqual(10);
    const perRoute = Math.max(1, Math.ceil(SAMPLE / routes.length));
    const failures: string[] = [];
    let sent = 0;
    for (const route of routes) {
      const [method, path] = route.split(' ') as [string, string];
      const session =
        path.startsWith('/api/operators') || path.startsWith('/api/settings') ? admin : operator;
      const sendsBody = method !== 'GET' && method !== 'DELETE';
      await freshThread(); // a DELETE or an accepted message of an earlier route must not starve this one
      let state = await snapshot();
      const bodies: ({ raw: string } | { obj: unknown })[] = sendsBody
        ? [...RAW_BODIES.map((raw) => ({ raw })), ...OBJECT_BODIES.map((obj) => ({ obj }))]
        : [{ obj: undefined }];
      const cases = expand(path).flatMap((url) =>
        (method === 'GET' || path.endsWith('/messages') ? QUERIES : ['']).flatMap((query) =>
          bodies.map((body) => ({ url, query, body })),
        ),
      );
      for (const { url, query, body } of sample(cases, perRoute)) {
        let req = (request(api.baseUrl) as any)[method.toLowerCase()](url + query).set(session.headers);
        if ('raw' in body) req = req.set('Content-Type', 'application/json').send(body.raw);
        else if (body.obj !== undefined) req = req.send(body.obj);
        const res = await req;
        sent++;
        const label = `${method} ${url.slice(0, 80)}${query.slice(0, 40)} ${'raw' in body ? body.raw.slice(0, 40) : JSON.stringify(body.obj)?.slice(0, 60)}`;
        if (res.status >= 500)
          failures.push(`${res.status} ${label}: ${JSON.stringify(res.body).slice(0, 200)}`);
        const after = await snapshot();
        if (res.status >= 400 && JSON.stringify(after) !== JSON.stringify(state))
          failures.push(`rows written on ${res.status}: ${label}`);
        state = after;
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(FULL ? 501 : routes.length);
    expect(unhandled).toEqual([]);
    expect((await request(api.baseUrl).get('/api/auth/me').set(operator.headers)).status).toBe(200);
  }, 600_000);

  it('over every socket event: an error ack or nothing, never a crash, no row written', async () => {
    const events = listGatewayEvents(ChatGateway);
    const payloads: unknown[] = [
      undefined,
      null,
      42,
      'chat',
      [],
      [chatId],
      {},
      { chatId: 42 },
      { chatId: 'a\u0000b' },
      { chatId: '\ud800' },
      { chatId: RTL },
      { chatId: 'x'.repeat(200_000) },
      { chatId, afterSeq: -1 },
      { chatId, afterSeq: 1e300 },
      { chatId, afterSeq: '5' },
      { chatId, afterSeq: { $gt: 0 } },
      { chatId, turnId: 'nope' },
      { chatId, turnId: randomUUID() },
      { chatId: randomUUID(), turnId },
      { __proto__: { chatId } },
    ];
    await freshThread();
    const socket = await connectChatSocket(api.baseUrl, operator);
    try {
      const before = await snapshot();
      for (const event of events) {
        for (const payload of payloads) {
          const ack = (await socket.timeout(3000).emitWithAck(event, payload)) as {
            ok: boolean;
            error?: string;
          };
          expect(typeof ack.ok).toBe('boolean');
          if (!ack.ok) expect(typeof ack.error).toBe('string');
          socket.emit(event, payload); // without an ack callback too
        }
        // Extra arguments and no payload at all.
        await socket.timeout(3000).emitWithAck(event, { chatId }, 'extra', 42);
      }
      expect(socket.connected).toBe(true);
      // Only the cancel of the real turn may have changed anything (it ends the queued turn).
      const after = await snapshot();
      for (const [table, n] of Object.entries(after))
        if (table !== 'chat_messages' && table !== 'chat_turns')
          expect({ table, n }).toEqual({ table, n: before[table] });
      expect(unhandled).toEqual([]);
      expect((await socket.timeout(3000).emitWithAck('chat:join', { chatId })).ok).toBe(true);
    } finally {
      socket.close();
    }
  }, 120_000);
});
