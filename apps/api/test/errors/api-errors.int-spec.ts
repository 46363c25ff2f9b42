/**
 * The API's refusals say what was wrong and what to do, on the real app (`createApiApp`, real
 * Postgres and Redis): blank messages, over-size JSON bodies, multipart field and file-count
 * mistakes on import, malformed ids naming the parameter, one validation message per field, and
 * the findings filter's bounds.
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import request from 'supertest';
import { importReport } from '@corpus-chat/ingest';
import { corpusPath } from '@corpus-chat/ingest/testing';
import { createTestDatabase, insertTestOperator, type TestDatabase } from '@corpus-chat/persistence/testing';
import { CSRF_HEADERS, loginAs, type LoginSession } from '../support/login';
import { type RunningApi, startApi } from '../security/full-app';

jest.setTimeout(60_000);

let db: TestDatabase;
let api: RunningApi;
let alice: LoginSession;
let bob: LoginSession;
let chatId: string;

const http = () => request(api.baseUrl);
const messageCount = async (): Promise<number> =>
  (await db.dataSource.query(`SELECT count(*)::int AS n FROM chat_messages`))[0].n;
const reportCount = async (): Promise<number> =>
  (await db.dataSource.query(`SELECT count(*)::int AS n FROM reports`))[0].n;

beforeAll(async () => {
  db = await createTestDatabase();
  api = await startApi(db.url, { IMPORT_MAX_BYTES: String(5 * 1024 * 1024) });
  const a = await insertTestOperator(db.dataSource);
  const b = await insertTestOperator(db.dataSource);
  alice = await loginAs(api.baseUrl, a.username, a.password);
  bob = await loginAs(api.baseUrl, b.username, b.password);
  const chat = await http().post('/api/chats').set(alice.headers).send({ title: 'errors' });
  expect(chat.status).toBe(201);
  chatId = chat.body.id;
});
afterAll(async () => {
  await api?.close();
  await db?.drop();
});

describe('messages', () => {
  it('refuses a blank message with 400 "content must not be blank" and stores nothing', async () => {
    const before = await messageCount();
    for (const content of ['   ', '', '\n\t \u00a0\u3000']) {
      const r = await http().post(`/api/chats/${chatId}/messages`).set(alice.headers).send({ content });
      expect({ content, status: r.status, message: r.body.message }).toEqual({
        content,
        status: 400,
        message: ['content must not be blank'],
      });
    }
    expect(await messageCount()).toBe(before);
    const ok = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(alice.headers)
      .send({ content: '  how many findings?  ' });
    expect(ok.status).toBe(202);
  });

  it('answers a JSON body over 1 MB with 413 naming the limit and the import route', async () => {
    const before = await messageCount();
    const r = await http()
      .post(`/api/chats/${chatId}/messages`)
      .set(alice.headers)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ content: 'x'.repeat(3 * 1024 * 1024) }));
    expect(r.status).toBe(413);
    expect(r.body).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message:
        'Request body is larger than the 1 MB limit (imports: use POST /api/reports/import, up to 5 MB)',
    });
    expect(await messageCount()).toBe(before);
  });
});

describe('ids in the path', () => {
  it('names the parameter of a malformed UUID; a well-formed unknown or foreign id stays 404', async () => {
    const bad = await http().get('/api/chats/not-a-uuid').set(alice.headers);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ statusCode: 400, message: 'id must be a UUID' });
    const patch = await http().patch('/api/chats/123').set(alice.headers).send({ title: 'x' });
    expect(patch.body).toMatchObject({ statusCode: 400, message: 'id must be a UUID' });
    const cancel = await http().post(`/api/chats/${chatId}/turns/not-a-uuid/cancel`).set(alice.headers);
    expect(cancel.body).toMatchObject({ statusCode: 400, message: 'turnId must be a UUID' });

    const foreign = await http().get(`/api/chats/${chatId}`).set(bob.headers);
    const unknown = await http().get(`/api/chats/${randomUUID()}`).set(bob.headers);
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    expect(foreign.body).toEqual(unknown.body);
  });

  it('names the parameter of a malformed integer id', async () => {
    for (const id of ['abc', '0', '-1', '1.5', '%20']) {
      const finding = await http().get(`/api/findings/${id}`).set(alice.headers);
      expect({ id, status: finding.status, message: finding.body.message }).toEqual({
        id,
        status: 400,
        message: 'id must be a positive integer',
      });
      const report = await http().patch(`/api/reports/${id}`).set(alice.headers).send({ archived: true });
      expect({ id, status: report.status, message: report.body.message }).toEqual({
        id,
        status: 400,
        message: 'id must be a positive integer',
      });
    }
    const huge = await http().get('/api/findings/99999999999').set(alice.headers);
    expect(huge.status).toBe(400);
    expect(huge.body.message).toMatch(/^id must be a positive integer up to 2147483647/);
    expect((await http().get('/api/findings/2147483647').set(alice.headers)).status).toBe(404);
  });
});

describe('validation messages', () => {
  it('gives one message per field, the first failing constraint, as a list', async () => {
    const empty = await http().post('/api/auth/login').set(CSRF_HEADERS).send({});
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: ['username is required', 'password is required'],
    });
    const typed = await http().post('/api/auth/login').set(CSRF_HEADERS).send({ username: 42, password: '' });
    expect(typed.body.message).toEqual([
      'username must be a string',
      'password must be longer than or equal to 1 characters',
    ]);
    const extra = await http()
      .post('/api/auth/login')
      .set(CSRF_HEADERS)
      .send({ username: 'a', password: 'b', admin: true });
    expect(extra.body.message).toEqual(['property admin should not exist']);
  });
});

describe('import', () => {
  const sarif = () => fs.readFileSync(corpusPath('scans/sarif/dd__flawfinder.sarif'));

  it('names the multipart field when a file comes in another one, or none is sent', async () => {
    const wrong = await http()
      .post('/api/reports/import')
      .set(alice.headers)
      .attach('file', sarif(), 'a.sarif');
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe(
      "upload the files in the multipart field 'files' (a file came in 'file')",
    );
    const mixed = await http()
      .post('/api/reports/import')
      .set(alice.headers)
      .attach('files', sarif(), 'a.sarif')
      .attach('upload', sarif(), 'b.sarif');
    expect(mixed.status).toBe(400);
    expect(mixed.body.message).toMatch(/^upload the files in the multipart field 'files'/);

    const none = await http().post('/api/reports/import').set(alice.headers).field('files', 'not a file');
    expect(none.status).toBe(400);
    expect(none.body.message).toBe("upload one or more files in the multipart field 'files' (none was sent)");
    const json = await http().post('/api/reports/import').set(alice.headers).send({ files: [] });
    expect(json.status).toBe(400);
    expect(json.body.message).toMatch(/multipart field 'files'/);
    expect(await reportCount()).toBe(0);
  });

  it('refuses more than 20 files with 413 naming the limit, importing none', async () => {
    const junk = (n: number) => {
      let req = http().post('/api/reports/import').set(alice.headers);
      for (let i = 0; i < n; i++)
        req = req.attach('files', Buffer.from(`{"not":"a report ${i}"}`), `r${i}.json`);
      return req;
    };
    const twenty = await junk(20); // the limit itself is accepted: every file is queued as an import
    expect(twenty.status).toBe(202);
    expect(twenty.body.imports).toHaveLength(20);
    const r = await junk(21);
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ error: 'TOO_MANY_FILES', results: [] });
    expect(r.body.message).toMatch(/at most 20 files per import request/);
    expect(await reportCount()).toBe(0);
  });
});

describe('findings', () => {
  beforeAll(async () => {
    // No ingest worker runs here: the report is imported as the worker would.
    const outcome = await importReport(db.dataSource, {
      filename: 'dd__flawfinder.sarif',
      bytes: fs.readFileSync(corpusPath('scans/sarif/dd__flawfinder.sarif')),
    });
    expect(outcome.ok).toBe(true);
  });

  it('refuses a zero, negative or non-numeric cwe with 400 naming the field', async () => {
    for (const cwe of ['0', '-79', 'abc', '1.5']) {
      const r = await http().get('/api/findings').query({ cwe }).set(alice.headers);
      expect({ cwe, status: r.status, message: r.body.message }).toEqual({
        cwe,
        status: 400,
        message: ['cwe must be a positive integer (79 for CWE-79)'],
      });
    }
  });

  it('answers an offset beyond the total with no rows and the exact total', async () => {
    const first = await http().get('/api/findings').query({ limit: 5 }).set(alice.headers);
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(53);
    for (const offset of [53, 54, 10_000]) {
      const past = await http().get('/api/findings').query({ limit: 5, offset }).set(alice.headers);
      expect({ offset, status: past.status, total: past.body.total, rows: past.body.rows }).toEqual({
        offset,
        status: 200,
        total: 53,
        rows: [],
      });
    }
    const filtered = await http()
      .get('/api/findings')
      .query({ text: 'buffer', limit: 5, offset: 10_000 })
      .set(alice.headers);
    const filteredTotal = (
      await http().get('/api/findings').query({ text: 'buffer', limit: 0 }).set(alice.headers)
    ).body.total;
    expect(filteredTotal).toBeGreaterThan(0);
    expect(filtered.body).toMatchObject({ total: filteredTotal, rows: [] });
  });
});

describe('OpenAPI document', () => {
  it('describes request bodies from the DTOs’ validation rules (the contracts carry no @ApiProperty)', async () => {
    const root = await insertTestOperator(db.dataSource, { role: 'admin' });
    const admin = await loginAs(api.baseUrl, root.username, root.password);
    const doc = await http().get('/api/docs-json').set(admin.headers);
    expect(doc.status).toBe(200);
    const schemas = doc.body.components.schemas;
    expect(schemas.PostMessageDto).toMatchObject({
      type: 'object',
      properties: { content: { type: 'string' }, clientMessageId: { type: 'string', format: 'uuid' } },
      required: ['content'],
    });
    expect(schemas.CreateChatDto.properties.title).toMatchObject({ type: 'string', maxLength: 200 });
    const post = doc.body.paths['/api/chats/{id}/messages'].post;
    expect(post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PostMessageDto',
    });
  });

  it('describes query strings from the query DTOs’ validation rules, one parameter per field', async () => {
    const root = await insertTestOperator(db.dataSource, { role: 'admin' });
    const admin = await loginAs(api.baseUrl, root.username, root.password);
    const doc = await http().get('/api/docs-json').set(admin.headers);
    const params = (path: string, method = 'get') =>
      Object.fromEntries(
        (
          doc.body.paths[path][method].parameters as {
            name: string;
            in: string;
            required: boolean;
            schema: object;
          }[]
        )
          .filter((p) => p.in === 'query')
          .map((p) => [p.name, { required: p.required, ...p.schema }]),
      );
    const search = params('/api/findings');
    expect(Object.keys(search)).toEqual(
      expect.arrayContaining(['text', 'severity', 'reportId', 'cwe', 'verdict', 'limit', 'offset']),
    );
    expect(search.severity).toMatchObject({
      required: false,
      enum: ['critical', 'high', 'medium', 'low', 'info'],
    });
    expect(search.limit).toMatchObject({ required: false, type: 'integer', minimum: 0, maximum: 50 });
    expect(search.text).toMatchObject({ type: 'string', maxLength: 500 });
    expect(params('/api/findings/counts').groupBy).toMatchObject({ required: true });
    expect(Object.keys(params('/api/reports'))).toEqual(['includeArchived']);
    expect(Object.keys(params('/api/chats'))).toContain('archived');
    expect(Object.keys(params('/api/chats/{id}/messages', 'post'))).toContain('ifBusy');
  });
});
