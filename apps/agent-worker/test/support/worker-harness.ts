import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { loadWorkerEnv, type WorkerEnv } from '../../src/config/worker-env';
import { WORKER_ID } from '../../src/turns/worker-id';
import { WorkerModule } from '../../src/worker.module';
import { ScriptedAgentRunner, ScriptedRunnerModule } from './scripted-runner';

export interface WorkerOptions {
  databaseUrl: string;
  /** The test file's Redis prefix (shared with the API it serves). */
  redisPrefix: string;
  redisUrl?: string;
  /** Default: a new `ScriptedAgentRunner`. */
  runner?: ScriptedAgentRunner;
  /** More settings (`WORKER_CONCURRENCY`, `LOCK_DURATION_MS`, …) as environment strings. */
  env?: Record<string, string>;
}

export interface RunningWorker {
  app: INestApplicationContext;
  workerId: string;
  runner: ScriptedAgentRunner;
  env: WorkerEnv;
  /** Closes it gracefully (waits for running turns up to SHUTDOWN_TIMEOUT_MS). */
  close(): Promise<void>;
}

/** The settings a test worker runs with: its own id, quiet logs, no migrations (the test database is migrated). */
export function testWorkerEnv(o: Omit<WorkerOptions, 'runner'>): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl ?? process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: o.redisPrefix,
    RUN_MIGRATIONS: '0',
    WORKER_ID: `test-worker-${randomUUID().slice(0, 8)}`,
    ...o.env,
  };
}

/**
 * A worker that takes no turn jobs, for tests that call its turn use cases (`app.get(RunTurn)`)
 * themselves.
 */
export function startUseCaseWorker(o: Omit<WorkerOptions, 'env'>): Promise<RunningWorker> {
  return startWorker({ ...o, env: { WORKER_QUEUES: 'webhooks' } });
}

/** Starts an agent-worker in this process with a scripted runner (see `ScriptedAgentRunner`). */
export async function startWorker(o: WorkerOptions): Promise<RunningWorker> {
  const env = loadWorkerEnv(testWorkerEnv(o));
  const runner = o.runner ?? new ScriptedAgentRunner();
  const app = await NestFactory.createApplicationContext(
    WorkerModule.forRoot({ env, agentModule: ScriptedRunnerModule.forRoot(runner) }),
    { bufferLogs: true },
  );
  app.useLogger(app.get(Logger));
  await app.init();
  return { app, workerId: app.get<string>(WORKER_ID), runner, env, close: () => app.close() };
}
