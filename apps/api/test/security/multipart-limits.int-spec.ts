/**
 * Every multipart route refuses text fields it does not read before buffering them: 300 text
 * fields of 1 MB each are refused with 400 at the first field (multer then reads the rest of the
 * body and drops it, so the client sees no broken pipe), and so are many small fields.
 */
import 'reflect-metadata';
import http from 'node:http';
import request from 'supertest';
import { createTestDatabase, insertTestOperator, type TestDatabase } from '@corpus-chat/persistence/testing';
import { loginAs, type LoginSession } from '../support/login';
import { listRoutes, type RunningApi, startApi } from './full-app';

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
function postFields(path: string, count: number, size: number): Promise<{ status: number; message: string }> {
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
