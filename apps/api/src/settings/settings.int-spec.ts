/**
 * `/api/settings` on the real auth guard, Postgres and Redis: admin-only, no key in answers,
 * validation of the base URL, `POST /api/settings/test` against a small OpenAI-compatible HTTP
 * server (models list, one-token completion, the agent's tools, the context length, with the
 * server's own error messages), and the stored key going only to the server it was saved for.
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Module } from '@nestjs/common';
import { ZodValidationPipe } from '../errors/zod-validation.pipe';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import request from 'supertest';
import { CSRF_HEADER, CSRF_HEADER_VALUE } from '@corpus-chat/contracts';
import { dataSourceOptions, readModelSettings } from '@corpus-chat/persistence';
import {
  createTestDatabase,
  insertTestOperator,
  type TestDatabase,
  testDataDir,
  testRedisPrefix,
} from '@corpus-chat/persistence/testing';
import { AuthModule } from '../auth/auth.module';
import { loadAuthEnv } from '../auth/auth.env';
import { SETTINGS_ENV, type SettingsEnv } from './settings.env';
import { SettingsModule } from './settings.module';

/**
 * A minimal OpenAI-compatible server: `GET /v1/models` and non-streamed `POST /v1/chat/completions`,
 * recording each request's path, body and headers.
 */
function modelServer(models: string[]) {
  const seen: { path: string; body: any; auth?: string; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const c of req) raw += c;
    const body = raw ? JSON.parse(raw) : undefined;
    seen.push({ path: req.url ?? '', body, auth: req.headers.authorization, headers: req.headers });
    res.setHeader('content-type', 'application/json');
    if (req.url?.endsWith('/models'))
      return res.end(
        JSON.stringify({
          object: 'list',
          data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 't' })),
        }),
      );
    if (!models.includes(body?.model)) {
      res.statusCode = 404;
      return res.end(
        JSON.stringify({
          error: { message: `model "${body?.model}" not found, try pulling it first`, type: 'not_found' },
        }),
      );
    }
    // A request with tools is answered with a call, as a model with tool calling does.
    const message = body.tools
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_corpus_overview', arguments: '{}' } },
          ],
        }
      : { role: 'assistant', content: 'OK' };
    res.end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [{ index: 0, message, finish_reason: body.tools ? 'tool_calls' : 'length' }],
      }),
    );
  });
  return { server, seen };
}

let db: TestDatabase;
let app: NestExpressApplication;
let adminCookie: string;
let operatorCookie: string;
const srv = modelServer(['qwen3:8b', 'llama3.1']);
let serverUrl: string;

async function login(username: string, password: string): Promise<string> {
  const res = await request(app.getHttpServer())
    .post('/api/auth/login')
    .set(CSRF_HEADER, CSRF_HEADER_VALUE)
    .send({ username, password });
  expect(res.status).toBe(200);
  return ([] as string[])
    .concat(res.headers['set-cookie'])
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('cc_session='))!;
}
const as = (cookie: string) => ({ Cookie: cookie, [CSRF_HEADER]: CSRF_HEADER_VALUE });

beforeAll(async () => {
  db = await createTestDatabase();
  await new Promise<void>((r) => srv.server.listen(0, '127.0.0.1', r));
  serverUrl = `http://127.0.0.1:${(srv.server.address() as AddressInfo).port}/v1`;
  const env = loadAuthEnv({
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    REDIS_PREFIX: testRedisPrefix(),
    JWT_SECRET: crypto.randomBytes(32).toString('hex'),
    DATA_DIR: testDataDir(),
  });
  @Module({
    imports: [TypeOrmModule.forRoot(dataSourceOptions(db.url)), AuthModule.forRoot(env), SettingsModule],
  })
  class SettingsTestModule {}
  const ref = await Test.createTestingModule({ imports: [SettingsTestModule] }).compile();
  app = ref.createNestApplication<NestExpressApplication>({ logger: ['error'] });
  app.setGlobalPrefix('api');
  app.useGlobalPipes(new ZodValidationPipe());
  await app.init();
  const admin = await insertTestOperator(db.dataSource, { role: 'admin' });
  const op = await insertTestOperator(db.dataSource, { role: 'operator' });
  adminCookie = await login(admin.username, admin.password);
  operatorCookie = await login(op.username, op.password);
});
afterAll(async () => {
  await app?.close();
  await new Promise((r) => srv.server.close(r));
  await db?.drop();
});

describe('/api/settings', () => {
  it('is for admins only: 401 without a session, 403 for an operator', async () => {
    await request(app.getHttpServer()).get('/api/settings').expect(401);
    await request(app.getHttpServer()).get('/api/settings').set(as(operatorCookie)).expect(403);
    await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(operatorCookie))
      .send({ backend: 'builtin' })
      .expect(403);
    await request(app.getHttpServer())
      .post('/api/settings/test')
      .set(as(operatorCookie))
      .send({})
      .expect(403);
  });

  it('starts with the built-in planner, which needs no server', async () => {
    const res = await request(app.getHttpServer()).get('/api/settings').set(as(adminCookie)).expect(200);
    expect(res.body).toEqual({
      backend: 'builtin',
      baseUrl: null,
      model: null,
      apiKeySet: false,
      updatedAt: null,
    });
    const t = await request(app.getHttpServer())
      .post('/api/settings/test')
      .set(as(adminCookie))
      .send({})
      .expect(200);
    expect(t.body.ok).toBe(true);
  });

  it('refuses a base URL that is not http(s) and an openai back end without model', async () => {
    const bad = await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(adminCookie))
      .send({ backend: 'openai', baseUrl: 'ftp://models.local/v1', model: 'x' })
      .expect(400);
    expect(JSON.stringify(bad.body)).toContain('baseUrl must be an http(s) URL');
    await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(adminCookie))
      .send({ backend: 'openai', baseUrl: serverUrl })
      .expect(400);
    await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(adminCookie))
      .send({ backend: 'gpt' })
      .expect(400);
    expect((await readModelSettings(db.dataSource)).backend).toBe('builtin');
  });

  it('saves a server and key, never returns the key, and keeps it when omitted', async () => {
    const put = await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(adminCookie))
      .send({ backend: 'openai', baseUrl: serverUrl, model: 'qwen3:8b', apiKey: 'sk-secret-123' })
      .expect(200);
    expect(put.body).toMatchObject({
      backend: 'openai',
      baseUrl: serverUrl,
      model: 'qwen3:8b',
      apiKeySet: true,
    });
    expect(JSON.stringify(put.body)).not.toContain('sk-secret-123');
    await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(adminCookie))
      .send({ backend: 'openai', baseUrl: serverUrl, model: 'llama3.1' })
      .expect(200);
    const get = await request(app.getHttpServer()).get('/api/settings').set(as(adminCookie)).expect(200);
    expect(get.body).toMatchObject({ model: 'llama3.1', apiKeySet: true });
    expect(JSON.stringify(get.body)).not.toContain('sk-secret');
    expect((await readModelSettings(db.dataSource)).apiKey).toBe('sk-secret-123');
  });

  it('tests the stored server: models listed and a one-token completion, sending the stored key', async () => {
    srv.seen.length = 0;
    const res = await request(app.getHttpServer())
      .post('/api/settings/test')
      .set(as(adminCookie))
      .send({})
      .expect(200);
    expect(res.body.ok).toBe(true);
    expect(res.body.checks.map((c: any) => [c.name, c.ok])).toEqual([
      ['models', true],
      ['completion', true],
      ['tools', true],
      ['context', true],
    ]);
    expect(res.body.checks[0].detail).toContain("including 'llama3.1'");
    const completion = srv.seen.find((s) => s.path.endsWith('/chat/completions'))!;
    expect(completion.body).toMatchObject({ model: 'llama3.1', max_tokens: 1 });
    expect(completion.auth).toBe('Bearer sk-secret-123');
    expect(srv.seen.find((s) => s.body?.tools)?.body.tools.length).toBeGreaterThan(0);
    // This server has no context API: the budget is AGENT_CONTEXT_TOKENS (default 6,000).
    expect(res.body.contextTokens).toBeUndefined();
    expect(res.body.contextBudgetTokens).toBe(6000);
    expect(res.body.checks[3].detail).toMatch(
      /^Context length unknown: the budget is AGENT_CONTEXT_TOKENS, 6,000 tokens\./,
    );
  });

  it("reports each failing check with the HTTP status and a fixed phrase, never the server's body", async () => {
    const res = await request(app.getHttpServer())
      .post('/api/settings/test')
      .set(as(adminCookie))
      .send({ model: 'mistral' })
      .expect(200);
    expect(res.body.ok).toBe(false);
    const [models, completion] = res.body.checks;
    expect(models).toMatchObject({ name: 'models', ok: false });
    expect(models.detail).toContain(
      "but not 'mistral' (available: qwen3:8b, llama3.1): a turn with it would fail",
    );
    expect(completion).toMatchObject({ name: 'completion', ok: false });
    expect(completion.detail).toBe(
      "A one-token completion with 'mistral' failed: HTTP 404 (not found: check the base URL and the model name)",
    );
    expect(JSON.stringify(res.body)).not.toContain('try pulling it first');
  });

  it('refuses to save or test a server outside MODEL_URL_ALLOWLIST with 422 naming it, sending it nothing', async () => {
    const env = app.get<SettingsEnv>(SETTINGS_ENV);
    const before = env.MODEL_URL_ALLOWLIST;
    const stored = await readModelSettings(db.dataSource);
    env.MODEL_URL_ALLOWLIST = 'https://models.example, *.corp.example';
    try {
      const seen = srv.seen.length;
      const save = await request(app.getHttpServer())
        .put('/api/settings')
        .set(as(adminCookie))
        .send({ backend: 'openai', baseUrl: serverUrl, model: 'qwen3:8b' })
        .expect(422);
      expect(save.body.message).toContain(
        `The model server ${serverUrl} is not allowed by MODEL_URL_ALLOWLIST (allowed: https://models.example, *.corp.example)`,
      );
      expect(await readModelSettings(db.dataSource)).toEqual(stored);
      const test = await request(app.getHttpServer())
        .post('/api/settings/test')
        .set(as(adminCookie))
        .send({ baseUrl: serverUrl, model: 'qwen3:8b' })
        .expect(422);
      expect(test.body.message).toContain('MODEL_URL_ALLOWLIST');
      // The stored server (saved before the list was set) is not tested either.
      await request(app.getHttpServer()).post('/api/settings/test').set(as(adminCookie)).send({}).expect(422);
      expect(srv.seen.length).toBe(seen);
      // An allowed host passes the check (the request is then made and fails to connect).
      await request(app.getHttpServer())
        .put('/api/settings')
        .set(as(adminCookie))
        .send({ backend: 'openai', baseUrl: 'http://llm.corp.example:1/v1', model: 'm' })
        .expect(200);
    } finally {
      env.MODEL_URL_ALLOWLIST = before;
      await request(app.getHttpServer())
        .put('/api/settings')
        .set(as(adminCookie))
        .send({
          backend: stored.backend,
          baseUrl: stored.baseUrl ?? undefined,
          model: stored.model ?? undefined,
        })
        .expect(200);
    }
  });

  it('says when nothing listens at the base URL', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const res = await request(app.getHttpServer())
      .post('/api/settings/test')
      .set(as(adminCookie))
      .send({ baseUrl: `http://127.0.0.1:${port}/v1` })
      .expect(200);
    expect(res.body.ok).toBe(false);
    const [models, completion, tools, context] = res.body.checks;
    expect([models, completion].every((c: any) => !c.ok && /ECONNREFUSED/.test(c.detail))).toBe(true);
    expect(tools).toMatchObject({
      name: 'tools',
      ok: false,
      detail: 'Not tried: the plain completion failed, so a request with tools would fail too.',
    });
    expect(context).toMatchObject({
      name: 'context',
      ok: true,
      detail: expect.stringContaining('Context length unknown'),
    });
  });
});

describe('the stored API key goes only to the server it was saved for', () => {
  type Server = ReturnType<typeof modelServer> & {
    baseUrl: string;
    requests: ReturnType<typeof modelServer>['seen'];
  };
  let home: Server;
  let elsewhere: Server;
  const KEY = 'sk-home-only-7f3a';
  // Anywhere in the headers, not only Authorization.
  const carriesKey = (s: Server, key = KEY) =>
    s.requests.filter((r) => JSON.stringify(r.headers).includes(key));
  const start = async (): Promise<Server> => {
    const m = modelServer(['qwen3:8b']);
    await new Promise<void>((r) => m.server.listen(0, '127.0.0.1', r));
    return {
      ...m,
      requests: m.seen,
      baseUrl: `http://127.0.0.1:${(m.server.address() as AddressInfo).port}/v1`,
    };
  };

  beforeAll(async () => {
    home = await start();
    elsewhere = await start();
  });
  afterAll(async () => {
    for (const s of [home, elsewhere]) if (s) await new Promise((r) => s.server.close(r));
  });
  beforeEach(async () => {
    await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(adminCookie))
      .send({ backend: 'openai', baseUrl: home.baseUrl, model: 'qwen3:8b', apiKey: KEY })
      .expect(200);
    home.requests.length = 0;
    elsewhere.requests.length = 0;
  });

  it('tests another base URL without the stored key, and the stored one with it', async () => {
    const other = await request(app.getHttpServer())
      .post('/api/settings/test')
      .set(as(adminCookie))
      .send({ baseUrl: elsewhere.baseUrl })
      .expect(200);
    expect(other.body.checks[1]).toMatchObject({ name: 'completion', ok: true });
    expect(elsewhere.requests.length).toBeGreaterThan(0);
    expect(carriesKey(elsewhere)).toEqual([]);
    expect(home.requests).toEqual([]);

    // The same server spelled differently (host case, trailing slash) is still the key's server.
    const spelled = home.baseUrl.replace('http://', 'HTTP://').replace('/v1', '/v1/');
    await request(app.getHttpServer())
      .post('/api/settings/test')
      .set(as(adminCookie))
      .send({ baseUrl: spelled })
      .expect(200);
    const toHome = home.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(toHome.length).toBeGreaterThan(0);
    expect(toHome.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(carriesKey(elsewhere)).toEqual([]);
  });

  it('sends a key typed for another server to that server, and keeps the stored one', async () => {
    await request(app.getHttpServer())
      .post('/api/settings/test')
      .set(as(adminCookie))
      .send({ baseUrl: elsewhere.baseUrl, apiKey: 'sk-typed-for-elsewhere' })
      .expect(200);
    expect(carriesKey(elsewhere, 'sk-typed-for-elsewhere').length).toBe(elsewhere.requests.length);
    expect(carriesKey(elsewhere)).toEqual([]);
    expect((await readModelSettings(db.dataSource)).apiKey).toBe(KEY);
  });

  it('clears the stored key when a save moves to another server without a new key', async () => {
    const put = await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(adminCookie))
      .send({ backend: 'openai', baseUrl: elsewhere.baseUrl, model: 'qwen3:8b' })
      .expect(200);
    expect(put.body).toMatchObject({ baseUrl: elsewhere.baseUrl, apiKeySet: false });
    expect((await readModelSettings(db.dataSource)).apiKey).toBeNull();
    await request(app.getHttpServer()).post('/api/settings/test').set(as(adminCookie)).send({}).expect(200);
    expect(elsewhere.requests.length).toBeGreaterThan(0);
    expect(carriesKey(elsewhere)).toEqual([]);
  });

  it('keeps the key when the save names the same server, however spelled, or brings a new key', async () => {
    const spelled = home.baseUrl.replace('http://', 'Http://').replace('/v1', '/v1//');
    await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(adminCookie))
      .send({ backend: 'openai', baseUrl: spelled, model: 'qwen3:8b' })
      .expect(200);
    expect((await readModelSettings(db.dataSource)).apiKey).toBe(KEY);
    await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(adminCookie))
      .send({ backend: 'builtin' })
      .expect(200);
    expect((await readModelSettings(db.dataSource)).apiKey).toBe(KEY);
    await request(app.getHttpServer())
      .put('/api/settings')
      .set(as(adminCookie))
      .send({ backend: 'openai', baseUrl: elsewhere.baseUrl, model: 'qwen3:8b', apiKey: 'sk-new' })
      .expect(200);
    expect((await readModelSettings(db.dataSource)).apiKey).toBe('sk-new');
  });
});
