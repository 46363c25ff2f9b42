import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, ensureDatabase } from '@corpus-chat/persistence';
import { importCorpusFiles, loadQuestions } from '@corpus-chat/ingest/testing';
import { RedisKeys } from '@corpus-chat/server-core';
import { DEFAULT_STUB_MODEL, type StubModelConfig } from '../stub-model/stub-model.config';
import { sleep } from './stats';

/** The repository root. */
export const ROOT = path.resolve(__dirname, '..', '..');

/** A child process of the stack. */
export interface Proc {
  name: string;
  child: ChildProcess;
  pid: number;
  logFile: string;
  /** Port of the runtime probe (event-loop lag, RSS), when preloaded. */
  probePort?: number;
}

/** Options of a started process. */
export interface StartOptions {
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Write a V8 CPU profile into the logs folder (`--cpu-prof`). */
  cpuProfile?: boolean;
  /** Preload the runtime probe (event-loop lag, RSS over HTTP). */
  probe?: boolean;
}

/** A process of the stack ended while the harness waited for it. */
export class ProcessExitedError extends Error {}

/** A TCP port free right now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `fn` until it returns a truthy value; throws naming `what` after `timeoutMs`. */
export async function waitUntil<T>(
  fn: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      if (e instanceof ProcessExitedError) throw e;
      last = e;
    }
    await sleep(100);
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`,
  );
}

/**
 * The real stack for one run, each part in its own process group: its own database (the
 * questions' 41 files) and Redis prefix, the API, N workers (`dist/node`) and the stub model.
 * `dispose()` stops and drops everything.
 */
export class BenchStack {
  readonly id = randomBytes(4).toString('hex');
  readonly dbName = `cc_bench_${this.id}`;
  readonly redisPrefix = `cc-bench-${this.id}`;
  readonly keys = new RedisKeys(this.redisPrefix);
  readonly adminUser = 'bench-admin';
  readonly adminPassword = `bench-${randomBytes(12).toString('base64url')}`;
  readonly jwtSecret = randomBytes(32).toString('hex');
  readonly pgServerUrl = process.env['BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  readonly redisUrl = process.env['BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
  /** The harness's own connection to the bench database (setup and inspection). */
  ds!: DataSource;
  redis!: Redis;
  api?: Proc & { baseUrl: string };
  workers: (Proc & { healthPort: number })[] = [];
  stub?: Proc & { baseUrl: string; config: StubModelConfig };
  private readonly procs = new Set<Proc>();
  private disposed = false;

  constructor(
    readonly logsDir: string,
    readonly log: (m: string) => void,
    readonly logLevel: string,
  ) {}

  get databaseUrl(): string {
    const u = new URL(this.pgServerUrl);
    u.pathname = `/${this.dbName}`;
    return u.toString();
  }

  /** Builds the server (SWC, `dist/node`) unless `build` is false. */
  static build(log: (m: string) => void): void {
    log('building the server side (node tools/build/build-node.mjs)…');
    const r = spawnSync(process.execPath, ['tools/build/build-node.mjs'], { cwd: ROOT, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}\n${r.stderr}`);
  }

  /** Creates, migrates and loads the database; connects the harness to it and to Redis. */
  async setup(): Promise<void> {
    fs.mkdirSync(this.logsDir, { recursive: true });
    await ensureDatabase(this.databaseUrl);
    this.ds = createDataSource(this.databaseUrl, { extra: { max: 8 } });
    await this.ds.initialize();
    await this.ds.runMigrations({ transaction: 'each' });
    const { corpus } = loadQuestions();
    const started = Date.now();
    const outcomes = await importCorpusFiles(this.ds, corpus.files);
    const failed = outcomes.filter((o) => !o.ok);
    if (failed.length)
      throw new Error(
        `corpus import refused ${failed.length} files: ${failed.map((f) => f.file).join(', ')}`,
      );
    const [{ n }] = await this.ds.query(`SELECT count(*)::int AS n FROM findings`);
    this.log(
      `database ${this.dbName}: ${corpus.files.length} corpus files, ${n} findings imported in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    this.redis = new Redis(this.redisUrl, { maxRetriesPerRequest: 2 });
  }

  /** Environment shared by the API and the workers. */
  baseEnv(): Record<string, string> {
    return {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: this.logLevel,
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.redisUrl,
      REDIS_PREFIX: this.redisPrefix,
      RUN_MIGRATIONS: '0',
      JWT_SECRET: this.jwtSecret,
      ADMIN_USERNAME: this.adminUser,
      ADMIN_PASSWORD: this.adminPassword,
      COOKIE_SECURE: 'false',
      DATA_DIR: path.join(this.logsDir, 'data'),
      // Limits raised through their settings (not bypassed) so the load generator is not throttled.
      MESSAGES_PER_MINUTE: '10000000',
      REQUESTS_PER_MINUTE: '10000000',
      MAX_ACTIVE_TURNS_PER_OPERATOR: '100000',
      // One bench operator joins dozens of threads at once and opens many sockets (scenario 5).
      SOCKET_EVENTS_PER_SECOND: '10000',
      MAX_SOCKETS_PER_OPERATOR: '10000',
    };
  }

  private async spawnNode(
    name: string,
    args: string[],
    env: Record<string, string>,
    opts: StartOptions,
  ): Promise<Proc> {
    const probePort = opts.probe ? await freePort() : undefined;
    const logFile = path.join(this.logsDir, `${name}.log`);
    const out = fs.openSync(logFile, 'w');
    const flags: string[] = [];
    if (probePort) flags.push('-r', path.join(ROOT, 'bench/probes/runtime-probe.cjs'));
    if (env['TURN_TRACE_FILE']) flags.push('-r', path.join(ROOT, 'bench/probes/turn-trace.cjs'));
    // BENCH_WORKER_FLAGS and BENCH_API_FLAGS (space-separated Node/V8 flags) try the workers or the API with other settings.
    const extra = { worker: 'BENCH_WORKER_FLAGS', api: 'BENCH_API_FLAGS' }[name.split('-')[0]];
    flags.push(...(process.env[extra ?? ''] ?? '').split(' ').filter(Boolean));
    if (opts.cpuProfile)
      flags.push(
        '--cpu-prof',
        `--cpu-prof-dir=${path.join(this.logsDir, 'profiles')}`,
        `--cpu-prof-name=${name}.cpuprofile`,
      );
    const child = spawn(process.execPath, [...flags, ...args], {
      cwd: ROOT,
      env: { ...env, ...(probePort ? { BENCH_PROBE_PORT: String(probePort) } : {}) },
      stdio: ['ignore', out, out],
      detached: true,
    });
    fs.closeSync(out);
    const proc: Proc = { name, child, pid: child.pid!, logFile, probePort };
    this.procs.add(proc);
    child.on('exit', (code, signal) => {
      if (this.procs.has(proc) && !this.disposed)
        this.log(`${name} exited (${signal ?? code}) unexpectedly; see ${logFile}`);
      this.procs.delete(proc);
    });
    return proc;
  }

  private assertAlive(proc: Proc): void {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
      const tail = fs.readFileSync(proc.logFile, 'utf8').split('\n').slice(-30).join('\n');
      throw new ProcessExitedError(
        `${proc.name} exited (${proc.child.signalCode ?? proc.child.exitCode}):\n${tail}`,
      );
    }
  }

  private waitHealthy(proc: Proc, url: string, what: string): Promise<boolean> {
    return waitUntil(
      async () => {
        this.assertAlive(proc);
        return (await fetch(url)).ok;
      },
      what,
      90_000,
    );
  }

  /** Starts the API (SWC build) and waits for `/api/health`. */
  async startApi(opts: StartOptions = {}): Promise<Proc & { baseUrl: string }> {
    const port = await freePort();
    const env = { ...this.baseEnv(), API_PORT: String(port), API_HOST: '127.0.0.1', ...opts.env };
    const proc = await this.spawnNode('api', ['dist/node/apps/api/src/main.js'], env, opts);
    const baseUrl = `http://127.0.0.1:${port}`;
    await this.waitHealthy(proc, `${baseUrl}/api/health`, 'the API health check');
    this.api = { ...proc, baseUrl };
    return this.api;
  }

  /** Starts `n` more agent-workers and waits until each answers its health check. */
  async startWorkers(n: number, opts: StartOptions = {}): Promise<(Proc & { healthPort: number })[]> {
    const started: (Proc & { healthPort: number })[] = [];
    for (let i = 0; i < n; i++) {
      const healthPort = await freePort();
      const index = this.workers.length + i + 1;
      const env = {
        ...this.baseEnv(),
        WORKER_HEALTH_PORT: String(healthPort),
        WORKER_ID: `bench-worker-${index}`,
        SHUTDOWN_TIMEOUT_MS: '2000',
        ...opts.env,
      };
      const proc = await this.spawnNode(
        `worker-${index}`,
        ['dist/node/apps/agent-worker/src/main.js'],
        env,
        opts,
      );
      started.push(Object.assign(proc, { healthPort })); // the same object stop() looks up
    }
    for (const w of started)
      await this.waitHealthy(w, `http://127.0.0.1:${w.healthPort}/health`, `${w.name} health check`);
    this.workers.push(...started);
    return started;
  }

  /** Starts (or restarts) the stub model (2 s first token, 20 deltas, one search). */
  async startStub(): Promise<Proc & { baseUrl: string; config: StubModelConfig }> {
    if (this.stub) await this.stop(this.stub);
    const config = DEFAULT_STUB_MODEL;
    const stub = await this.spawnNode(
      'stub-model',
      ['tools/cli/run-ts.mjs', 'bench/stub-model/main.ts'],
      { PATH: process.env['PATH'] ?? '', STUB_MODEL_CONFIG: JSON.stringify(config) },
      {},
    );
    const baseUrl = await waitUntil(
      async () => {
        this.assertAlive(stub);
        return /STUB_MODEL_READY (\S+)/.exec(fs.readFileSync(stub.logFile, 'utf8'))?.[1];
      },
      'the stub model',
      30_000,
    );
    this.stub = { ...stub, baseUrl, config };
    return this.stub;
  }

  /** Stops one process: SIGTERM to its group, SIGKILL after 10 s. */
  async stop(proc: Proc): Promise<void> {
    this.procs.delete(proc);
    const { child } = proc;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signalGroup(child, 'SIGTERM');
    const timedOut = await Promise.race([exited.then(() => false), sleep(10_000).then(() => true)]);
    if (timedOut) {
      this.log(`${proc.name} did not stop in 10 s: killing it`);
      signalGroup(child, 'SIGKILL');
      await exited;
    }
    if (this.api?.pid === proc.pid) this.api = undefined;
    this.workers = this.workers.filter((w) => w.pid !== proc.pid);
    if (this.stub?.pid === proc.pid) this.stub = undefined;
  }

  /** Stops every process, empties the queue and the turn tables (between scenarios). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.procs].map((p) => this.stop(p)));
    this.api = undefined;
    this.workers = [];
    this.stub = undefined;
  }

  /**
   * Deletes the run's Redis keys (queue, events, limits): `{<prefix>}:*`, and the rate limiter's
   * `{<prefix>:…}` keys (hash-tagged by @nest-lab/throttler-storage-redis; they also expire).
   */
  async clearRedis(): Promise<void> {
    for (const pattern of [`${this.keys.root}:*`, `{${this.redisPrefix}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await this.redis.unlink(...keys);
      } while (cursor !== '0');
    }
  }

  /** Stops everything, drops the database and deletes the Redis keys, whatever state the run is in. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    await this.stopAll().catch((e: Error) => this.log(`stopping processes: ${e.message}`));
    this.disposed = true;
    if (this.ds?.isInitialized) await this.ds.destroy().catch(() => undefined);
    if (this.redis) {
      await this.clearRedis().catch((e: Error) =>
        this.log(`could not delete Redis keys ${this.keys.root}:*: ${e.message}`),
      );
      this.redis.disconnect();
    }
    const c = new Client({ connectionString: this.pgServerUrl });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS "${this.dbName}" WITH (FORCE)`);
    } catch (e) {
      this.log(`could not drop ${this.dbName}: ${(e as Error).message}`);
    } finally {
      await c.end();
    }
  }

  /** Last-resort synchronous kill (process `exit` handler). */
  killNow(): void {
    for (const p of this.procs) signalGroup(p.child, 'SIGKILL');
  }

  /** Pids of the Postgres backends connected to the bench database right now. */
  async postgresBackendPids(): Promise<number[]> {
    const rows: { pid: number }[] = await this.ds.query(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [this.dbName],
    );
    return rows.map((r) => r.pid);
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}
