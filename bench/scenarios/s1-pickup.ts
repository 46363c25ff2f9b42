import path from 'node:path';
import { QueueEvents } from 'bullmq';
import { JobNames } from '@corpus-chat/contracts';
import { type BenchContext, latencyFigure, type ScenarioResult } from '../lib/report';
import { nowMs, sleep, summarize } from '../lib/stats';
import {
  markAt,
  ONE_TOOL_QUESTIONS,
  operatorId,
  prepareTurns,
  readTrace,
  turnJobOpts,
  turnQueue,
  waitTurnsEnded,
} from '../lib/turns';

/** Scenario 1 — enqueue → worker pickup, against the Redis round trip (the floor is two). */
export async function scenario1(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, log } = ctx;
  const jobs = ctx.quick ? 200 : 1000;
  const warmup = ctx.quick ? 50 : 100;
  const gapMs = 10;
  const trace = path.join(ctx.logsDir, 'trace-s1.jsonl');
  const env = { TURN_TRACE_FILE: trace };
  await stack.startApi({ env });
  await stack.startWorkers(1, { env, cpuProfile: ctx.profile });
  const owner = await operatorId(stack, stack.adminUser);
  log(`s1: preparing ${jobs + warmup} turns`);
  const turns = await prepareTurns(
    stack,
    owner,
    jobs + warmup,
    (i) => ONE_TOOL_QUESTIONS[i % ONE_TOOL_QUESTIONS.length],
  );
  const queue = turnQueue(stack);
  const events = new QueueEvents(queue.name, {
    connection: queue.opts.connection,
    prefix: queue.opts.prefix,
  });
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);

  const addStart = new Map<string, number>();
  const addMs: number[] = [];
  log(
    `s1: adding ${jobs} jobs one at a time, ${gapMs} ms after the previous one completed (after ${warmup} warm-up jobs)`,
  );
  for (const [i, t] of turns.entries()) {
    // Warm the worker up (JIT, connections, query cache) and let it go idle before measuring.
    if (i === warmup) await waitTurnsEnded(stack, 60_000, turns.slice(0, warmup));
    const t0 = nowMs();
    const job = await queue.add(JobNames.runTurn, t, turnJobOpts(t.turnId));
    const t1 = nowMs();
    if (i >= warmup) {
      addStart.set(t.turnId, t0);
      addMs.push(t1 - t0);
    }
    // The next job finds the worker idle, as the primitive's does: its turn ended, its job completed.
    await job.waitUntilFinished(events, 30_000);
    await sleep(gapMs);
  }
  await waitTurnsEnded(stack, 60_000);

  // The reference: Redis round trips from the harness, measured now, on the same machine state.
  const rtt: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const t0 = nowMs();
    await stack.redis.ping();
    rtt.push(nowMs() - t0);
  }
  await Promise.all([queue.close(), events.close()]);
  const index = await readTrace([trace]);
  const pickup = [...addStart].map(([turnId, t0]) => markAt(index, turnId, 'worker.picked') - t0);
  const missing = pickup.filter((x) => !Number.isFinite(x)).length;
  const rttSummary = summarize(rtt);
  const pickupSummary = summarize(pickup);
  await stack.stopAll();
  await stack.clearRedis();
  return {
    id: 1,
    title: 'Enqueue → worker pickup',
    figures: [
      latencyFigure(
        'enqueue → pickup (Queue.add start → processor start)',
        pickupSummary,
        'bullmq',
        { p: 'p50', times: 2 },
        { p: 'p99', times: 1.5 },
      ),
      latencyFigure('  of which Queue.add call', summarize(addMs)),
      latencyFigure('reference: Redis round trip (PING)', rttSummary),
      { name: 'reference: floor = 2 round trips (p50)', unit: 'ms', value: 2 * rttSummary.p50 },
    ],
    markdown: [
      `${jobs} jobs added one at a time, each ${gapMs} ms after the previous one completed, to one idle agent-worker (WORKER_CONCURRENCY 8), after ${warmup} warm-up jobs; each job is a real one-tool planner turn.${missing ? ` ${missing} jobs had no pickup mark.` : ''}`,
    ],
    raw: { jobs, gapMs, pickupMs: pickup, addMs, rttMs: rtt },
  };
}
