/**
 * The real processes (`main.ts`, JSON logs at info): request lines are levelled by outcome (4xx
 * warn, never error), a refused over-size body is one warn line without a stack, health probes and
 * the web client's files are left out of the request log; a port already in use stops the API
 * (API_PORT) and a worker (WORKER_HEALTH_PORT) with exit 1 and one sentence instead of a stack.
 */
import 'reflect-metadata';
import { type ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createTestDatabase, insertTestOperator, type TestDatabase } from '@corpus-chat/persistence/testing';
import { loginAs } from '../support/login';
import { testProcessEnv } from '../support/process-env';
import { requestLogFlushed } from '../support/request-log';

jest.setTimeout(90_000);

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
let db: TestDatabase;
let webDir: string;
let api: ChildProcess;
let output = '';
let baseUrl: string;
let port: number;

/** Environment of a process of this test's deployment. */
const baseEnv = (): NodeJS.ProcessEnv => testProcessEnv(db.url);

/** Runs `entry` until it exits (killed after `ms`), with its exit code and everything it printed. */
function runToExit(
  entry: string,
  env: NodeJS.ProcessEnv,
  ms = 60_000,
): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['tools/cli/run-ts.mjs', entry], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    }),
  );
}

/** The JSON log lines printed so far. */
function logLines(): {
  level: number;
  msg?: string;
  req?: { url?: string };
  res?: { statusCode?: number };
  err?: unknown;
}[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

beforeAll(async () => {
  db = await createTestDatabase();
  webDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cc-web-'));
  fs.writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>Corpus Chat</title>');
  fs.writeFileSync(path.join(webDir, 'main-abc123.js'), 'console.log(1);');
  api = spawn(process.execPath, ['tools/cli/run-ts.mjs', 'apps/api/src/main.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...baseEnv(), API_PORT: '0', API_HOST: '127.0.0.1', WEB_DIST_DIR: webDir },
  });
  api.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  api.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the API did not start:\n${output}`)), 60_000);
    const check = () => {
      const m = /listening on (http:\/\/[^\s/]+)/.exec(output);
      if (!m) return;
      clearTimeout(timer);
      api.stdout!.off('data', check);
      resolve(m[1]!);
    };
    api.stdout!.on('data', check);
    api.once('exit', (code) => reject(new Error(`the API exited (${code}):\n${output}`)));
  });
  port = Number(new URL(baseUrl).port);
});
afterAll(async () => {
  if (api && api.exitCode === null) {
    const exited = new Promise((r) => api.once('exit', r));
    api.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(webDir, { recursive: true, force: true });
  await db?.drop();
});

describe('request log', () => {
  it('logs client errors at warn without a stack, successes at info, and leaves out probes and web files', async () => {
    const op = await insertTestOperator(db.dataSource);
    const session = await loginAs(baseUrl, op.username, op.password);
    expect((await request(baseUrl).get('/api/auth/me').set(session.headers)).status).toBe(200);
    expect((await request(baseUrl).get('/api/auth/me')).status).toBe(401);
    expect((await request(baseUrl).get('/api/chats/not-a-uuid').set(session.headers)).status).toBe(400);
    const big = await request(baseUrl)
      .post('/api/chats')
      .set(session.headers)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ title: 'x'.repeat(3 * 1024 * 1024) }));
    expect(big.status).toBe(413);
    expect(big.body.message).toBe(
      'Request body is larger than the 1 MB limit (imports: use POST /api/reports/import, up to 50 MB)',
    );
    // Body-parser errors are answered by the API even while it serves the web client (WEB_DIST_DIR),
    // whose static module would otherwise turn them into 404 "Cannot POST".
    const marker = `secret-${crypto.randomUUID()}`;
    const malformed = await request(baseUrl)
      .post('/api/chats')
      .set(session.headers)
      .set('Content-Type', 'application/json')
      .send(`{"title": "${marker}", }`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/^Request body is not valid JSON \(/);
    expect((await request(baseUrl).get('/api/health')).status).toBe(200);
    expect((await request(baseUrl).get('/main-abc123.js')).status).toBe(200);
    expect((await request(baseUrl).get('/chat/some-thread')).status).toBe(200); // a client route: index.html
    await requestLogFlushed(baseUrl, api, () => output);

    const lines = logLines();
    const requestLine = (url: string, status: number) =>
      lines.find((l) => l.req?.url === url && l.res?.statusCode === status && l.msg === 'request completed');
    expect(requestLine('/api/auth/login', 200)?.level).toBe(30);
    expect(requestLine('/api/auth/me', 200)?.level).toBe(30);
    expect(requestLine('/api/auth/me', 401)?.level).toBe(40);
    expect(requestLine('/api/chats/not-a-uuid', 400)?.level).toBe(40);

    const refused = lines.filter((l) =>
      l.msg?.startsWith('request refused: Request body is larger than the 1 MB limit'),
    );
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ level: 40, status: 413, type: 'entity.too.large' });
    expect(JSON.stringify(refused[0])).not.toContain('    at ');
    expect(lines.filter((l) => l.msg === 'request refused: Request body is not valid JSON')).toEqual([
      expect.objectContaining({ level: 40, status: 400, type: 'entity.parse.failed' }),
    ]);
    expect(output).not.toContain(marker);

    // Nothing at error or above, and no stack anywhere: every failure here was the client's.
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(output).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);

    const urls = lines.map((l) => l.req?.url).filter(Boolean);
    expect(urls).not.toContain('/api/health');
    expect(urls).not.toContain('/main-abc123.js');
    expect(urls).not.toContain('/chat/some-thread');
  });
});

describe('a port already in use', () => {
  it('stops a second API on the same port with exit 1 and a sentence naming API_PORT', async () => {
    const { code, out } = await runToExit('apps/api/src/main.ts', {
      ...baseEnv(),
      API_PORT: String(port),
      API_HOST: '127.0.0.1',
    });
    expect(code).toBe(1);
    expect(out).toContain(
      `port ${port} is already in use (API_PORT): stop the other process or set API_PORT`,
    );
    expect(out).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
  });

  it('stops a worker whose health port is taken with exit 1 and a sentence naming WORKER_HEALTH_PORT', async () => {
    const { code, out } = await runToExit('apps/agent-worker/src/main.ts', {
      ...baseEnv(),
      WORKER_HEALTH_PORT: String(port),
    });
    expect(code).toBe(1);
    expect(out).toContain(
      `port ${port} is already in use (WORKER_HEALTH_PORT): stop the other process or set WORKER_HEALTH_PORT`,
    );
    expect(out).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
  });
});
