/**
 * `MODEL_MAX_CONCURRENT` across workers: three worker processes' worth of workers (each its own
 * Nest app, BullMQ worker and Redis connections) share one model server capped at 2 open requests.
 * The scripted server counts what is open at once, from its own side of the connections.
 */
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { writeModelSettings } from '@corpus-chat/persistence';
import { AgentModule } from '../src/agent/agent.module';
import { agentConfig } from '../src/agent/agent.config';
import { ScriptedOpenAiServer } from '../src/agent/testing/scripted-openai-server';
import { loadWorkerEnv } from '../src/config/worker-env';
import { WorkerModule } from '../src/worker.module';
import { TurnTestBed } from './support/turn-test-bed';
import { testWorkerEnv } from './support/worker-harness';

jest.setTimeout(90_000);

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
