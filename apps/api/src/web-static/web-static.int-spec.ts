/** The real API serving a web build (`WEB_DIST_DIR`): the app page's CSP and frame protection. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { type RunningApi, startApi } from '../../test/security/full-app';
import { APP_PAGE_CSP } from './app-page-headers';

let db: TestDatabase;
let api: RunningApi;
let webDir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cc-web-csp-'));
  fs.writeFileSync(
    path.join(webDir, 'index.html'),
    '<!doctype html><title>Corpus Chat</title><cc-root></cc-root>',
  );
  fs.writeFileSync(path.join(webDir, 'main-abc123.js'), 'console.log(1);');
  api = await startApi(db.url, { WEB_DIST_DIR: webDir });
});
afterAll(async () => {
  await api?.close();
  fs.rmSync(webDir, { recursive: true, force: true });
  await db?.drop();
});

test.each([
  ['the app page', '/'],
  ['a client-side route answered with index.html', '/chat/some-thread'],
  ['a bundle', '/main-abc123.js'],
])('%s carries the CSP and X-Frame-Options: DENY', async (_what, url) => {
  const res = await request(api.baseUrl).get(url);
  expect(res.status).toBe(200);
  expect(res.headers['content-security-policy']).toBe(APP_PAGE_CSP);
  expect(res.headers['x-frame-options']).toBe('DENY');
});

test('the policy forbids framing and inline scripts', () => {
  const directives = new Map(
    APP_PAGE_CSP.split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k, v]),
  );
  expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
  expect(directives.get('script-src')).toEqual(["'self'"]);
});
