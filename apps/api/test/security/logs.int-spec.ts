/**
 * The API's logs at info level (the real process, `main.ts`, JSON lines on stdout) never contain
 * passwords, session cookies or tokens, model API keys, or the operators' messages, while still
 * logging every request.
 */
import 'reflect-metadata';
import { type ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import request from 'supertest';
import { createTestDatabase, insertTestOperator, type TestDatabase } from '@corpus-chat/persistence/testing';
import { CSRF_HEADERS, loginAs } from '../support/login';
import { testProcessEnv } from '../support/process-env';
import { requestLogFlushed } from '../support/request-log';

jest.setTimeout(60_000);

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
