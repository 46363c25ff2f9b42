/**
 * The worker app `main.ts` starts, against the real Postgres and Redis: health, metrics, queues,
 * warm-up and model slots, one block per area, each on a database and Redis prefix of its own. One
 * file, so the worker's modules load once (seconds of CPU a file).
 */

import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  createTestDatabase,
  eventually,
  type TestDatabase,
  testRedisPrefix,
} from '@corpus-chat/persistence/testing';
import { loadWorkerEnv } from '../src/config/worker-env';
import { createWorkerApp, workerHealthPort } from '../src/health/worker-app';
import { WorkerModule } from '../src/worker.module';
import { ScriptedAgentRunner, scriptedMessage, ScriptedRunnerModule } from './support/scripted-runner';
import { type RunningWorker, startWorker, testWorkerEnv } from './support/worker-harness';
import { MetricsServer, RedisKeys, redisOptionsFromUrl } from '@corpus-chat/server-core';
import { TurnTestBed } from './support/turn-test-bed';
import { Queue } from 'bullmq';
import { CHAT_TURNS_QUEUE, IMPORTS_QUEUE, WEBHOOKS_QUEUE } from '@corpus-chat/contracts';
import { NestFactory } from '@nestjs/core';
import { writeModelSettings } from '@corpus-chat/persistence';
import { AgentModule } from '../src/agent/agent.module';
import { agentConfig } from '../src/agent/agent.config';
import { ScriptedOpenAiServer } from '../src/agent/testing/scripted-openai-server';

jest.setTimeout(90_000);

/**
 * The worker's `GET /health` on `WORKER_HEALTH_PORT`, served by the worker app `main.ts` starts
 * (`createWorkerApp`), against the real Postgres and Redis.
 */
describe('health', () => {
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
});

/**
 * The worker's Prometheus metrics on `METRICS_PORT`: queue depth read from Redis at scrape time,
 * and the turn histograms counting what the worker ran (real Postgres, Redis and BullMQ).
 */

/** The value of one sample line (`name{labels} value`) of a scrape, 0 when absent. */
function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('worker metrics', () => {
  let bed: TurnTestBed;
  let worker: RunningWorker;
  let url: string;
  const scrape = async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };

  beforeAll(async () => {
    bed = await TurnTestBed.create();
    worker = await startWorker({
      databaseUrl: bed.databaseUrl,
      redisPrefix: bed.prefix,
      env: { METRICS_PORT: '0' },
    });
    url = `http://127.0.0.1:${worker.app.get(MetricsServer).port}/metrics`;
  });
  afterAll(async () => {
    await worker.close();
    await bed.close();
  });

  it('shows waiting turns in the queue, then counts the turns run and their wait', async () => {
    const before = await scrape();
    const depth = (text: string) =>
      sample(text, 'corpus_chat_queue_jobs', 'queue="chat-turns",state="waiting"') +
      sample(text, 'corpus_chat_queue_jobs', 'queue="chat-turns",state="paused"');
    await bed.queue.pause();
    // One running turn per thread: two threads.
    const turns = [
      await bed.enqueue(await bed.newChat(), scriptedMessage({ deltas: ['one'] })),
      await bed.enqueue(await bed.newChat(), scriptedMessage({ deltas: ['two'] })),
    ];
    expect(depth(await scrape())).toBe(2);

    await bed.queue.resume();
    for (const { turnId } of turns) await bed.waitForEvent(turnId, 'turn.done');
    const after = await scrape();
    expect(depth(after)).toBe(0);
    const count = (text: string, name: string, labels = '') => sample(text, `${name}_count`, labels);
    expect(
      count(after, 'corpus_chat_turn_duration_seconds', 'outcome="complete"') -
        count(before, 'corpus_chat_turn_duration_seconds', 'outcome="complete"'),
    ).toBe(2);
    expect(
      count(after, 'corpus_chat_turn_wait_seconds') - count(before, 'corpus_chat_turn_wait_seconds'),
    ).toBe(2);
    expect(after).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it('serves nothing but /metrics', async () => {
    expect((await fetch(url.replace('/metrics', '/'))).status).toBe(404);
  });
});

/** `WORKER_QUEUES`: a worker connects to the queues it is given and to no other (real Redis and BullMQ). */
describe('queues', () => {
  const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
  let db: TestDatabase;
  const opened: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(opened.map((o) => o.close()));
    await db.drop();
  });

  /** The names of the BullMQ workers connected to each queue of a worker started with `WORKER_QUEUES=value`. */
  async function workersPerQueue(value: string): Promise<Record<string, number>> {
    const prefix = testRedisPrefix();
    const worker: RunningWorker = await startWorker({
      databaseUrl: db.url,
      redisPrefix: prefix,
      env: { WORKER_QUEUES: value },
    });
    opened.push(worker);
    const queues = [CHAT_TURNS_QUEUE, IMPORTS_QUEUE, WEBHOOKS_QUEUE].map((name) => {
      const queue = new Queue(name, {
        connection: redisOptionsFromUrl(REDIS_URL),
        prefix: new RedisKeys(prefix).bullPrefix,
      });
      opened.push(queue);
      return queue;
    });
    // Wait until the worker is connected to every queue it was given, then count them all.
    const expected = queues.filter((q) => value.includes(queueRole(q.name)));
    const connected = async () =>
      (await Promise.all(expected.map((q) => q.getWorkersCount()))).every((n) => n > 0);
    await eventually(connected, 10_000, 'a worker on every queue given');
    const counts: Record<string, number> = {};
    for (const q of queues) counts[queueRole(q.name)] = await q.getWorkersCount();
    return counts;
  }

  const queueRole = (name: string) =>
    name === CHAT_TURNS_QUEUE ? 'turns' : name === IMPORTS_QUEUE ? 'imports' : 'webhooks';

  it('takes every queue by default, only those it is told otherwise', async () => {
    expect(await workersPerQueue('turns,imports,webhooks')).toEqual({ turns: 1, imports: 1, webhooks: 1 });
    expect(await workersPerQueue('imports')).toEqual({ turns: 0, imports: 1, webhooks: 0 });
    expect(await workersPerQueue('turns,webhooks')).toEqual({ turns: 1, imports: 0, webhooks: 1 });
  });
});

/**
 * A worker warms up before it takes a job (`TurnWarmup`), and the warm-up writes nothing (real Postgres,
 * Redis, BullMQ).
 */
describe('warm-up', () => {
  let bed: TurnTestBed;
  let worker: RunningWorker | undefined;
  beforeAll(async () => {
    bed = await TurnTestBed.create();
  });
  afterAll(async () => {
    await worker?.close();
    await bed.close();
  });

  it('runs a job waiting at its start only after its warm-up, which stores no turn, message or thread', async () => {
    const thread = await bed.newChat();
    const { turnId } = await bed.enqueue(thread, 'How many findings are there?');
    const counts = () =>
      bed.db.dataSource.query(
        `SELECT (SELECT count(*) FROM chat_turns)::int AS turns, (SELECT count(*) FROM chat_messages)::int AS messages,
              (SELECT count(*) FROM chat_sessions)::int AS threads`,
      );
    const [before] = await counts();
    const order: string[] = [];
    const runner = new ScriptedAgentRunner();
    const run = runner.run.bind(runner);
    runner.run = (ctx) => (order.push(`run ${ctx.turnId}`), run(ctx));
    Object.assign(runner, {
      warmUp: async () => order.push(`warm-up, job ${await bed.queue.getJobState(turnId)}`),
    });
    worker = await startWorker({ databaseUrl: bed.databaseUrl, redisPrefix: bed.prefix, runner });
    await bed.waitForEvent(turnId, 'turn.done');
    expect(order).toEqual(['warm-up, job waiting', `run ${turnId}`]);
    const [after] = await counts();
    expect(after).toEqual({ ...before, messages: before.messages + 1 }); // the answer only
  });
});

/**
 * `MODEL_MAX_CONCURRENT` across workers: three worker processes' worth of workers (each its own
 * Nest app, BullMQ worker and Redis connections) share one model server capped at 2 open requests.
 * The scripted server counts what is open at once, from its own side of the connections.
 */
describe('model slots', () => {
  let bed: TurnTestBed;
  let server: ScriptedOpenAiServer;
  const workers: INestApplicationContext[] = [];

  beforeAll(async () => {
    bed = await TurnTestBed.create();
    server = await ScriptedOpenAiServer.start();
    // Every request: a slow streamed answer (10 chunks, 20 ms apart), so requests overlap.
    server.responder = () => ({
      kind: 'stream',
      chunkDelayMs: 20,
      chunks: [...Array.from({ length: 10 }, () => ({ text: 'word ' })), { finish: 'stop' }],
    });
    await writeModelSettings(bed.db.dataSource, {
      backend: 'openai',
      baseUrl: server.baseUrl,
      model: 'scripted-model',
      apiKey: 'sk-test',
    });
    for (let i = 0; i < 3; i++) {
      const env = loadWorkerEnv(
        testWorkerEnv({
          databaseUrl: bed.databaseUrl,
          redisPrefix: bed.prefix,
          env: { WORKER_CONCURRENCY: '8' },
        }),
      );
      const config = agentConfig({ maxConcurrentPerServer: 2 });
      const app = await NestFactory.createApplicationContext(
        WorkerModule.forRoot({ env, agentModule: AgentModule.forRoot({ config }) }),
        { logger: false },
      );
      await app.init();
      workers.push(app);
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await server?.close();
    await bed?.close();
  });

  /** The most requests the server had open at one moment, from when each arrived and closed. */
  function mostOpenAtOnce(): number {
    const edges = server.completionRequests.flatMap((r) => [
      { t: r.receivedAt, d: 1 },
      { t: r.closedAt ?? Infinity, d: -1 },
    ]);
    edges.sort((a, b) => a.t - b.t || a.d - b.d);
    let open = 0;
    let most = 0;
    for (const e of edges) most = Math.max(most, (open += e.d));
    return most;
  }

  it('three workers never have more than MODEL_MAX_CONCURRENT=2 requests open at the model server over 30 turns', async () => {
    const turns = [];
    for (let i = 0; i < 30; i++) turns.push(await bed.enqueue(await bed.newChat(), `question ${i}`));
    for (const { turnId } of turns) await bed.waitForEvent(turnId, 'turn.done', 60_000);
    expect(server.completionRequests).toHaveLength(30);
    expect(mostOpenAtOnce()).toBe(2);
  });

  it('a turn waiting for a model slot shows as queued in first place, then runs', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    server.responder = async () => {
      await gate;
      return { kind: 'stream', chunks: [{ text: 'slot answer' }, { finish: 'stop' }] };
    };
    const before = server.completionRequests.length;
    const turns: { turnId: string }[] = [];
    for (let i = 0; i < 3; i++) turns.push(await bed.enqueue(await bed.newChat(), `held ${i}`));
    const slotWait = (turnId: string) =>
      bed.events(turnId).filter((e) => e.type === 'turn.queued' && e.modelSlot);
    // Two requests hold both slots at the server; the third turn waits for one.
    await server.waitFor(() => turns.some((t) => slotWait(t.turnId).length > 0), 20_000);
    expect(server.completionRequests.length - before).toBe(2);
    const waiting = turns.filter((t) => slotWait(t.turnId).length > 0);
    expect(waiting).toHaveLength(1);
    expect(slotWait(waiting[0].turnId)).toMatchObject([{ position: 1 }]);

    open();
    for (const { turnId } of turns) await bed.waitForEvent(turnId, 'turn.done', 20_000);
    const events = bed.events(waiting[0].turnId);
    // Queued for a worker, started, queued for the slot, running again (at the slot) until done.
    expect(events.slice(0, 4)).toMatchObject([
      { type: 'turn.queued' },
      { type: 'turn.started' },
      { type: 'turn.queued', modelSlot: true },
      { type: 'turn.progress', phase: 'prompt' },
    ]);
    expect(events.map((e) => e.type)).toContain('text.delta');
    expect(events.at(-1)?.type).toBe('turn.done');
  });
});
