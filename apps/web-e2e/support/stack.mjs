/**
 * The real stack for the browser tests: its own Postgres database (created, migrated and loaded
 * with the sample corpus by the import CLI), its own Redis key prefix, the API serving the
 * production web build on the same origin (WEB_DIST_DIR), and one agent-worker, each a child
 * process in its own process group. `stop()` ends every process it started and drops the
 * database and the Redis keys, whatever state the run is in.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A TCP port free right now on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `fn` until it returns a truthy value; throws `message` after `timeoutMs`. */
export async function waitUntil(fn, { timeoutMs = 60_000, intervalMs = 250, message = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      lastError = e;
    }
    await sleep(intervalMs);
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${message}${lastError ? `: ${lastError.message}` : ''}`,
  );
}

export class Stack {
  /**
   * @param {{ root: string, sharedDir: string, artifactsDir: string, log?: (msg: string) => void }} opts
   */
  constructor(opts) {
    this.root = opts.root;
    this.sharedDir = opts.sharedDir;
    this.logsDir = path.join(opts.artifactsDir, 'logs');
    this.log = opts.log ?? ((m) => console.log(`[e2e] ${m}`));
    const id = randomBytes(4).toString('hex');
    this.dbName = `cc_e2e_${id}`;
    this.redisPrefix = `cc-e2e-${id}`;
    this.adminUser = 'e2e-admin';
    this.adminPassword = `e2e-${randomBytes(9).toString('base64url')}`;
    this.pgServerUrl = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    this.redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
    /** @type {{ name: string, child: import('node:child_process').ChildProcess }[]} */
    this.children = [];
    this.stopped = false;
  }

  get databaseUrl() {
    const u = new URL(this.pgServerUrl);
    u.pathname = `/${this.dbName}`;
    return u.toString();
  }

  /** Production build of the web app (skipped with E2E_SKIP_BUILD=1 when a build exists). */
  buildWeb() {
    const dist = path.join(this.root, 'dist', 'web', 'browser');
    if (process.env.E2E_SKIP_BUILD === '1' && fs.existsSync(path.join(dist, 'index.html'))) {
      this.log('using the existing web build (E2E_SKIP_BUILD=1)');
      return dist;
    }
    this.log('building the web app (production)…');
    const nx = fs.realpathSync(path.join(this.root, 'node_modules', '.bin', 'nx'));
    // Through the Nx cache: the build is restored (seconds, not a minute of both cores) unless the web
    // app, a library it imports, the lockfile or tsconfig.base.json changed (nx.json, "production").
    const r = spawnSync(process.execPath, [nx, 'run', 'web:build:production', '--outputStyle=static'], {
      cwd: this.root,
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
      encoding: 'utf8',
    });
    if (r.status !== 0)
      throw new Error(
        `web build failed:\n${(r.stdout ?? '').slice(-3000)}\n${(r.stderr ?? '').slice(-3000)}`,
      );
    if (!fs.existsSync(path.join(dist, 'index.html')))
      throw new Error(`web build produced no ${dist}/index.html`);
    return dist;
  }

  /** Creates the database, migrates it and imports the corpus files of the questions file. */
  importCorpus(files) {
    this.log(`importing ${files.length} corpus files into ${this.dbName}…`);
    const r = spawnSync(
      process.execPath,
      ['tools/cli/run-ts.mjs', 'libs/ingest/src/cli/import.cli.ts', ...files],
      {
        cwd: this.root,
        env: { ...process.env, DATABASE_URL: this.databaseUrl, LOG_LEVEL: 'warn' },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    fs.mkdirSync(this.logsDir, { recursive: true });
    fs.writeFileSync(path.join(this.logsDir, 'import.log'), `${r.stdout}\n${r.stderr}`);
    if (r.status !== 0)
      throw new Error(
        `corpus import failed (exit ${r.status}); see ${path.join(this.logsDir, 'import.log')}\n${(r.stdout ?? '').slice(-2000)}${(r.stderr ?? '').slice(-2000)}`,
      );
  }

  /** Starts the API (serving `webDist`) and one worker; resolves when `/api/health` answers 200. */
  async start({ webDist }) {
    this.apiPort = await freePort();
    this.baseUrl = `http://127.0.0.1:${this.apiPort}`;
    const env = {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'info',
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.redisUrl,
      REDIS_PREFIX: this.redisPrefix,
      API_PORT: String(this.apiPort),
      API_HOST: '127.0.0.1',
      WEB_DIST_DIR: webDist,
      ADMIN_USERNAME: this.adminUser,
      ADMIN_PASSWORD: this.adminPassword,
      JWT_SECRET: randomBytes(32).toString('hex'),
      COOKIE_SECURE: 'false',
      DATA_DIR: path.join(this.logsDir, '..', 'data'),
      // The scenarios send a handful of messages quickly; keep the per-operator limits out of the way.
      MESSAGES_PER_MINUTE: '200',
      REQUESTS_PER_MINUTE: '5000',
      // Sign-ins check the hashing, not its cost (the default 64 MiB hash costs about 0.5 s of CPU).
      PASSWORD_HASH_MEMORY_KIB: '4096',
      WORKER_CONCURRENCY: '4',
      // 11-webhooks: a receiver on this machine, and retries in milliseconds instead of minutes.
      WEBHOOK_URL_ALLOWLIST: '127.0.0.1',
      WEBHOOK_ATTEMPTS: '3',
      WEBHOOK_RETRY_DELAY_MS: '100',
    };
    this.spawn('api', ['tools/cli/run-ts.mjs', 'apps/api/src/main.ts'], env);
    await waitUntil(
      async () => {
        this.assertAlive();
        const res = await fetch(`${this.baseUrl}/api/health`);
        return res.ok;
      },
      { timeoutMs: 180_000, intervalMs: 500, message: `the API on ${this.baseUrl}/api/health` },
    );
    this.spawn('worker', ['tools/cli/run-ts.mjs', 'apps/agent-worker/src/main.ts'], env);
    this.log(`API on ${this.baseUrl} (db ${this.dbName}, redis prefix ${this.redisPrefix})`);
  }

  spawn(name, args, env) {
    fs.mkdirSync(this.logsDir, { recursive: true });
    const out = fs.openSync(path.join(this.logsDir, `${name}.log`), 'w');
    const child = spawn(process.execPath, args, {
      cwd: this.root,
      env,
      stdio: ['ignore', out, out],
      detached: true,
    });
    fs.closeSync(out);
    child.on('exit', (code, signal) => {
      if (!this.stopped) this.log(`${name} exited (${signal ?? code}) before the end of the run`);
    });
    this.children.push({ name, child });
    return child;
  }

  /** Throws when a started process already exited (so waits fail fast with the reason). */
  assertAlive() {
    for (const { name, child } of this.children) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `${name} exited (${child.signalCode ?? child.exitCode}); last log lines:\n${this.tail(name)}`,
        );
      }
    }
  }

  tail(name, lines = 40) {
    try {
      return fs
        .readFileSync(path.join(this.logsDir, `${name}.log`), 'utf8')
        .split('\n')
        .slice(-lines)
        .join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** Ends the processes (SIGTERM, then SIGKILL after 10 s), drops the database and the Redis keys. */
  async stop() {
    if (this.stopped) return;
    this.stopped = true;
    for (const { child } of this.children) signalGroup(child, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    for (const { name, child } of this.children) {
      while (child.exitCode === null && child.signalCode === null && Date.now() < deadline) await sleep(100);
      if (child.exitCode === null && child.signalCode === null) {
        this.log(`${name} did not stop in 10 s: killing it`);
        signalGroup(child, 'SIGKILL');
      }
    }
    await this.dropDatabase().catch((e) => this.log(`could not drop ${this.dbName}: ${e.message}`));
    await this.deleteRedisKeys().catch((e) =>
      this.log(`could not delete Redis keys ${this.redisPrefix}*: ${e.message}`),
    );
  }

  /** Last-resort synchronous kill (process `exit` handler): no waiting possible there. */
  killNow() {
    for (const { child } of this.children) signalGroup(child, 'SIGKILL');
  }

  async dropDatabase() {
    const { Client } = require('pg');
    const c = new Client({ connectionString: this.pgServerUrl });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS "${this.dbName}" WITH (FORCE)`);
    } finally {
      await c.end();
    }
  }

  async deleteRedisKeys() {
    const Redis = require('ioredis');
    const redis = new Redis(this.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `*${this.redisPrefix}*`, 'COUNT', 500);
        cursor = next;
        if (keys.length) await redis.unlink(...keys);
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  }
}

function signalGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}
