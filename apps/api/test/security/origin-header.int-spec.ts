/**
 * The `Origin` check runs before any sign-in (on public writes and on every Socket.IO handshake),
 * so its cost must stay proportional to the header. Trimming trailing slashes with `/\/+$/`
 * rescanned a long run of slashes from each of them: a 16 kB header (Node's limit) cost 0.4 s of
 * the event loop per request, and a few requests a second stalled the API for everyone.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { CSRF_HEADERS } from '../support/login';
import { startAuthOnlyApp } from './standalone-app';

let db: TestDatabase;
let app: NestExpressApplication;
let baseUrl: string;

beforeAll(async () => {
  db = await createTestDatabase();
  ({ app, baseUrl } = await startAuthOnlyApp(db.url));
});
afterAll(async () => {
  await app?.close();
  await db?.drop();
});

it('refuses 20 requests with a 16 kB Origin of slashes at once, without stalling the API', async () => {
  const origin = `http://evil.example${'/'.repeat(15_000)}x`;
  const started = Date.now();
  const answers = await Promise.all([
    ...Array.from({ length: 10 }, () =>
      request(baseUrl).post('/api/auth/logout').set(CSRF_HEADERS).set('Origin', origin),
    ),
    ...Array.from({ length: 10 }, () =>
      request(baseUrl).get('/socket.io/?EIO=4&transport=polling').set('Origin', origin),
    ),
  ]);
  const elapsed = Date.now() - started;
  expect(answers.map((r) => r.status)).toEqual(Array(20).fill(403));
  expect(answers[0]!.body.message).toMatch(/Cross-origin request refused/);
  // Linear checks take milliseconds each; the quadratic trim took 0.4 s per request (8 s here).
  expect(elapsed).toBeLessThan(3_000);
});
