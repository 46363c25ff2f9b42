import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const ENTRY = 'apps/agent-worker/test/support/worker-child.ts';

/**
 * Bound of a worker's start-up (a safety net, not a timing): it compiles the worker's TypeScript
 * and loads Nest, seconds alone and over a minute on a loaded 2-core host. Hooks that start
 * workers need a bound above it.
 */
export const WORKER_START_MS = 120_000;

export interface WorkerProcessOptions {
  databaseUrl: string;
  redisPrefix: string;
  redisUrl?: string;
  /** More worker settings (`WORKER_CONCURRENCY`, `LOCK_DURATION_MS`, `STALLED_INTERVAL_MS`, …). */
  env?: Record<string, string>;
}

/** An agent-worker child process with the scripted runner (each message carries its `[[script …]]`). */
export interface WorkerProcess {
  child: ChildProcess;
  workerId: string;
  /** Resolves when the process has exited, with its code or signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when the process reported that SIGTERM arrived (its graceful shutdown began). */
  stopping: Promise<void>;
  /**
   * Resolves with the outcome of the first run of turn `turnId` that ended in this process
   * (`failed`: the runner threw, e.g. because its events could not be published).
   */
  runEnded(turnId: string): Promise<'done' | 'aborted' | 'failed' | undefined>;
  /** Sends `signal` (SIGKILL: the crash; SIGTERM: graceful shutdown). */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Starts `apps/agent-worker/test/support/worker-child.ts` (the real WorkerModule) as a child process
 * for `databaseUrl`/`redisPrefix`; resolves once it consumes jobs (it reports over IPC).
 */
export async function spawnWorkerProcess(o: WorkerProcessOptions): Promise<WorkerProcess> {
  const workerId = `test-worker-${randomUUID().slice(0, 8)}`;
  const child = spawn(process.execPath, ['tools/cli/run-ts.mjs', ENTRY], {
    cwd: ROOT,
    stdio: ['ignore', process.env['TEST_LOG_LEVEL'] ? 'inherit' : 'ignore', 'inherit', 'ipc'],
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
      DATABASE_URL: o.databaseUrl,
      REDIS_URL: o.redisUrl ?? process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379',
      REDIS_PREFIX: o.redisPrefix,
      RUN_MIGRATIONS: '0',
      WORKER_ID: workerId,
      ...o.env,
    },
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const stopping = new Promise<void>((resolve) =>
    child.on('message', (m: { type?: string }) => m?.type === 'stopping' && resolve()),
  );
  type RunEnded = { type: 'run-ended'; turnId: string; outcome?: 'done' | 'aborted' | 'failed' };
  const ended: RunEnded[] = [];
  child.on('message', (m: RunEnded) => m?.type === 'run-ended' && ended.push(m));
  const runEnded = (turnId: string) =>
    new Promise<RunEnded['outcome']>((resolve) => {
      const found = ended.find((m) => m.turnId === turnId);
      if (found) return resolve(found.outcome);
      const onMessage = (m: RunEnded) => {
        if (m?.type !== 'run-ended' || m.turnId !== turnId) return;
        child.off('message', onMessage);
        resolve(m.outcome);
      };
      child.on('message', onMessage);
    });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker process did not start within ${WORKER_START_MS / 1000} s`)),
      WORKER_START_MS,
    );
    child.on('message', (m: { type?: string }) => {
      if (m?.type !== 'ready') return;
      clearTimeout(timer);
      resolve();
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited during start-up (${code ?? signal})`));
    });
  });
  return {
    child,
    workerId,
    exited,
    stopping,
    runEnded,
    kill: (signal) => void child.kill(signal),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
