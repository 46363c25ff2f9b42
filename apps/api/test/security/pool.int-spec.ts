/**
 * No request holds two pooled Postgres connections at once: with a pool of one connection, every
 * route answers (none waits on a second connection until the acquire timeout turns it into a 503),
 * and a burst of parallel exports through a small pool leaves sign-in answering.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { corpusPath, importCorpusFiles } from '@corpus-chat/ingest/testing';
import {
  createTestDatabase,
  eventually,
  insertTestOperator,
  storeTestTurn,
  type TestDatabase,
} from '@corpus-chat/persistence/testing';
import { bearer, createApiToken } from '../support/api-tokens';
import { CSRF_HEADERS, loginAs, type LoginSession } from '../support/login';
import { listRoutes, type RunningApi, startApi } from './full-app';

/** Longer than the acquire timeout below, so a request stuck on a second connection shows as a 503. */
const REQUEST_TIMEOUT_MS = 8000;

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await importCorpusFiles(db.dataSource, ['scans/nuclei/dd__many_findings_new.jsonl']);
}, 60_000);
afterAll(() => db?.drop(), 60_000);

/** The answer of one request, or a description of its failure to answer within the bound. */
async function answer(test: request.Test): Promise<{ status: number; body: unknown }> {
  try {
    const r = await test.timeout(REQUEST_TIMEOUT_MS);
    return { status: r.status, body: r.body };
  } catch (e) {
    return { status: 0, body: `no answer in ${REQUEST_TIMEOUT_MS} ms: ${String(e)}` };
  }
}

describe('a pool of one connection', () => {
  let api: RunningApi;
  let admin: LoginSession;
  const ids: Record<string, string> = {};
  let mcpToken = '';

  beforeAll(async () => {
    api = await startApi(db.url, { DB_POOL_SIZE: '1', DB_ACQUIRE_TIMEOUT_MS: '3000' });
    const op = await insertTestOperator(db.dataSource, { role: 'admin' });
    admin = await loginAs(api.baseUrl, op.username, op.password);
    const other = await insertTestOperator(db.dataSource);
    const chat = await request(api.baseUrl).post('/api/chats').set(admin.headers).send({});
    const turn = await storeTestTurn(db.dataSource, admin.operator.id, chat.body.id, { content: 'hi' });
    const token = await createApiToken(api.baseUrl, admin, { name: 'pool' });
    const [report] = await db.dataSource.query(`SELECT id FROM reports ORDER BY id LIMIT 1`);
    const [finding] = await db.dataSource.query(`SELECT id FROM findings ORDER BY id LIMIT 1`);
    Object.assign(ids, {
      chats: chat.body.id,
      turnId: turn.turnId,
      reports: String(report.id),
      findings: String(finding.id),
      operators: other.id,
      tokens: token.id,
      imports: randomUUID(),
    });
    mcpToken = token.secret;
  }, 60_000);
  afterAll(() => api?.close(), 60_000);

  /** `/api/chats/:id/turns/:turnId/feedback` → a path with this file's rows' ids. */
  function pathOf(route: string): string {
    const segments = route.split('/');
    return segments
      .map((s, i) => {
        if (!s.startsWith(':')) return s;
        const key = s === ':id' ? segments[i - 1] : s.slice(1);
        return ids[key] ?? (key === 'id' || key.endsWith('Id') ? randomUUID() : '1');
      })
      .join('/');
  }

  /** Bodies that pass validation, so each write reaches the database. */
  const bodies = (): Record<string, object> => ({
    'PATCH /api/auth/me': { language: 'en' },
    'PATCH /api/findings/:id/status': { status: 'confirmed' },
    'PATCH /api/reports/:id': { archived: true },
    'POST /api/auth/login': { username: admin.operator.username, password: 'not the password' },
    'POST /api/auth/password': { currentPassword: 'not the password', newPassword: 'a new password 123' },
    'POST /api/auth/tokens': { name: 'second' },
    'POST /api/chats/:id/messages': { content: 'how many findings?' },
    'POST /api/findings/:id/notes': { stage: 'triage', body: 'seen' },
    'POST /api/findings/:id/retests': {
      tried: 'curl',
      retestedAt: new Date().toISOString(),
      verdict: 'fixed',
      rationale: 'gone',
    },
    'POST /api/findings/:id/versions': { reason: 'typo', severity: 'low' },
    'POST /api/findings/status': { ids: [Number(ids['findings'])], status: 'open', reason: 'retest' },
    'POST /api/operators': {
      username: `op-${randomUUID().slice(0, 8)}`,
      displayName: 'Pool',
      password: 'a long enough password',
      role: 'operator',
    },
    'POST /api/reports/:id/findings': { title: 'manual', severity: 'low' },
    'PUT /api/chats/:id/turns/:turnId/feedback': { rating: 'up' },
    'PUT /api/settings': { backend: 'builtin' },
    'POST /mcp': {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'count_findings', arguments: {} },
    },
  });
  const queries: Record<string, string> = {
    'GET /api/findings/counts': 'groupBy=severity',
    'GET /api/reports/compare': 'baseline=1&report=1',
  };
  /** Multipart routes: the field and a small file each takes. */
  const uploads: Record<string, [string, string]> = {
    'POST /api/chats/:id/attachments': ['file', 'scans/nuclei/dd__many_findings_new.jsonl'],
    'POST /api/reports/import': ['files', 'scans/sarif/dd__flawfinder.sarif'],
  };

  it('answers 503 "the database is busy" when no connection frees up in time', async () => {
    // Another session locks a table: the API's only connection waits on it, so the pool is empty.
    const lock = db.dataSource.createQueryRunner();
    await lock.connect();
    await lock.startTransaction();
    try {
      await lock.query('LOCK TABLE chat_sessions IN ACCESS EXCLUSIVE MODE');
      const held = answer(request(api.baseUrl).get('/api/chats').set(admin.headers));
      const lockWaits = async (): Promise<number> =>
        // Not on `lock`: pg_stat_activity is a snapshot taken once per transaction.
        (
          await db.dataSource.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          )
        )[0].n;
      await eventually(lockWaits, 5000, 'the API waiting on the locked table');
      const starved = await answer(request(api.baseUrl).get('/api/findings').set(admin.headers));
      expect(starved).toMatchObject({
        status: 503,
        body: { message: expect.stringMatching(/database is busy/) },
      });
      await lock.rollbackTransaction();
      expect((await held).status).toBe(200);
    } finally {
      if (lock.isTransactionActive) await lock.rollbackTransaction();
      await lock.release();
    }
  });

  it('answers every route without waiting on a second connection', async () => {
    const routes = [...listRoutes(api.app, '/api'), ...listRoutes(api.app, '/mcp')];
    expect(routes.length).toBeGreaterThan(40);
    // Destructive and session-ending routes last, so the others run on live rows and a live session.
    const rank = (r: string) => (r.includes('logout') ? 2 : r.startsWith('DELETE') ? 1 : 0);
    const stuck: string[] = [];
    for (const route of [...routes].sort((a, b) => rank(a) - rank(b))) {
      const [method, path] = route.split(' ');
      const url = pathOf(path) + (queries[route] ? `?${queries[route]}` : '');
      const client = request(api.baseUrl);
      const test = client[method.toLowerCase() as 'get'](url).set(admin.headers).set(CSRF_HEADERS);
      const upload = uploads[route];
      const body = bodies()[route] ?? {};
      if (route.startsWith('POST /mcp'))
        test.set(bearer(mcpToken)).set('Accept', 'application/json, text/event-stream');
      const r = await answer(
        upload
          ? test.attach(upload[0], corpusPath(upload[1]))
          : method === 'GET' || method === 'DELETE'
            ? test
            : test.send(body),
      );
      if (r.status === 0 || r.status >= 500)
        stuck.push(`${route} (${url}): ${r.status} ${JSON.stringify(r.body)}`);
    }
    expect(stuck).toEqual([]);
  }, 600_000);
});

describe('a burst of exports through a small pool', () => {
  let api: RunningApi;

  beforeAll(async () => {
    api = await startApi(db.url, { DB_POOL_SIZE: '4', DB_ACQUIRE_TIMEOUT_MS: '3000' });
  }, 60_000);
  afterAll(() => api?.close(), 60_000);

  it('leaves sign-in answering, refusing exports beyond the limit with 429', async () => {
    const op = await insertTestOperator(db.dataSource);
    const session = await loginAs(api.baseUrl, op.username, op.password);
    const token = await createApiToken(api.baseUrl, session, { name: 'read-only' });
    const exports = await Promise.all(
      Array.from({ length: 12 }, () =>
        answer(request(api.baseUrl).get('/api/findings/export.csv').set(bearer(token.secret))),
      ),
    );
    const statuses = exports.map((e) => e.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(exports.find((e) => e.status === 429)?.body).toMatchObject({
      message: expect.stringMatching(/exports running/),
    });
    const signIn = await answer(
      request(api.baseUrl)
        .post('/api/auth/login')
        .set(CSRF_HEADERS)
        .send({ username: op.username, password: op.password }),
    );
    expect(signIn.status).toBe(200);
    const audited = await db.dataSource.query(
      `SELECT count(*)::int AS n FROM audit_events WHERE action = 'findings.export' AND actor_id = $1`,
      [op.id],
    );
    expect(audited[0].n).toBe(statuses.filter((s) => s === 200).length);
  }, 120_000);
});
