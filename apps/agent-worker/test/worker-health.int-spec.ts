/**
 * The worker's `GET /health` on `WORKER_HEALTH_PORT`, served by the worker app `main.ts` starts
 * (`createWorkerApp`), against the real Postgres and Redis.
 */
import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestDatabase, testRedisPrefix, type TestDatabase } from '@corpus-chat/persistence/testing';
import { loadWorkerEnv } from '../src/config/worker-env';
import { createWorkerApp, workerHealthPort } from '../src/health/worker-app';
import { WorkerModule } from '../src/worker.module';
import { ScriptedAgentRunner, ScriptedRunnerModule } from './support/scripted-runner';
import { testWorkerEnv } from './support/worker-harness';

jest.setTimeout(40_000);

let db: TestDatabase;
const apps: INestApplication[] = [];

/** A worker app with a scripted runner, its health on `port`, and the id it answers with. */
async function start(port: number): Promise<{ app: INestApplication; workerId: string; url: string }> {
  const env = loadWorkerEnv(testWorkerEnv({ databaseUrl: db.url, redisPrefix: testRedisPrefix() }));
  const app = await createWorkerApp(
    WorkerModule.forRoot({ env, agentModule: ScriptedRunnerModule.forRoot(new ScriptedAgentRunner()) }),
    port,
  );
  apps.push(app);
  return { app, workerId: env.WORKER_ID!, url: `http://127.0.0.1:${workerHealthPort(app)}` };
}

beforeAll(async () => {
  db = await createTestDatabase();
});
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});
afterAll(() => db.drop());

describe('worker health', () => {
  it('answers 200 with status ok, the worker id, its running turns and Postgres and Redis up; nothing else is served', async () => {
    const { url, workerId } = await start(0);
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      workerId,
      runningTurns: 0,
      info: { postgres: { status: 'up' }, redis: { status: 'up' } },
      error: {},
      details: { postgres: { status: 'up' }, redis: { status: 'up' } },
    });
    expect((await fetch(`${url}/`)).status).toBe(404);
    expect((await fetch(`${url}/api/health`)).status).toBe(404);
  });

  it('answers 503 with status error, Postgres down and Redis up, when Postgres does not answer', async () => {
    const { app, url, workerId } = await start(0);
    await app.get(DataSource).destroy();
    const res = await fetch(`${url}/health`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { details: Record<string, unknown>; error: unknown };
    expect(body).toMatchObject({
      status: 'error',
      workerId,
      runningTurns: 0,
      details: { redis: { status: 'up' } },
    });
    expect(body.details['postgres']).toEqual({ status: 'down' });
    expect(body.error).toEqual({ postgres: { status: 'down' } });
  });

  it('opens no port at WORKER_HEALTH_PORT=-1', async () => {
    const { app } = await start(-1);
    expect(workerHealthPort(app)).toBeNull();
  });

  it('refuses a port already in use with EADDRINUSE (main.ts names the setting)', async () => {
    const first = await start(0);
    const port = workerHealthPort(first.app)!;
    await expect(start(port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    // The first one is unaffected.
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
  });
});
