import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** An agent-worker child process running the scripted runner (see the worker's `test/support/worker-child.ts`). */
export interface WorkerProcess {
  child: ChildProcess;
  workerId: string;
  /** SIGTERM, then SIGKILL after 10 s; resolves when the process has exited. */
  stop(): Promise<void>;
}

/**
 * Starts the real agent-worker with the scripted runner (each user message carries its script,
 * `[[script {...}]]`) for `databaseUrl` and `redisPrefix`. Resolves once it consumes jobs.
 */
export async function startWorkerProcess(databaseUrl: string, redisPrefix: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const workerId = `test-worker-${randomUUID().slice(0, 8)}`;
  const child = spawn(process.execPath, ['tools/cli/run-ts.mjs', 'apps/agent-worker/test/support/worker-child.ts'], {
    cwd: ROOT,
    stdio: ['ignore', process.env['TEST_LOG_LEVEL'] ? 'inherit' : 'ignore', 'inherit', 'ipc'],
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
      DATABASE_URL: databaseUrl,
      REDIS_URL: process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379',
      REDIS_PREFIX: redisPrefix,
      RUN_MIGRATIONS: '0',
      WORKER_ID: workerId,
      ...env,
    },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the worker did not start within 30 s')), 30_000);
    child.on('message', (m: { type?: string }) => {
      if (m?.type === 'ready') {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited during start-up (${code})`));
    });
  });
  return {
    child,
    workerId,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
