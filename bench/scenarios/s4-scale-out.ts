import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import { ApiSession, joinChat, turnEnds } from '../lib/api-client';
import { type CpuBreakdown, CpuMeter, cpuTable } from '../lib/cpu-meter';
import { type BenchContext, type Figure, type ScenarioResult } from '../lib/report';
import { fmt, nowMs, sleep, summarize, table } from '../lib/stats';
import { ONE_TOOL_QUESTIONS } from '../lib/turns';

/** One virtual operator: signed in, one thread, one socket, posting its next question when the last one is done. */
interface VirtualUser {
  session: ApiSession;
  socket: Socket;
  chatId: string;
}

interface Run {
  workers: number;
  turnsPerSecond: number;
  turns: number;
  latencyMs: ReturnType<typeof summarize>;
  cpu: CpuBreakdown;
  errors: number;
  /** Share of sampled bench backends (every 100 ms) by state and wait event: where Postgres time goes. */
  pgWaits: Record<string, number>;
}

/**
 * Scenario 4 — scaling out: V operators in a closed loop against one API and 1, 2, 4 workers
 * (built-in planner); turns/s, the ratio to one worker, CPU per process and a projection.
 */
export async function scenario4(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, log } = ctx;
  const counts = [1, 2, 4];
  const users = ctx.quick ? 12 : 48;
  const warmupS = ctx.quick ? 2 : 5;
  const measureS = ctx.quick ? 4 : 15;
  const api = await stack.startApi({ cpuProfile: ctx.profile });
  const admin = await ApiSession.login(api.baseUrl, stack.adminUser, stack.adminPassword);
  await admin.putSettings({ backend: 'builtin' });
  log(`s4: signing in ${users} operators`);
  const vus: VirtualUser[] = [];
  for (let i = 0; i < users; i++) {
    const session = await admin.newOperator(`bench-op-${stack.id}-${i}`);
    const chatId = (await session.createChat(`bench s4 ${i}`)).id;
    const socket = await session.connectSocket();
    await joinChat(socket, chatId);
    vus.push({ session, socket, chatId });
  }

  const runs: Run[] = [];
  for (const n of counts) {
    await Promise.all(stack.workers.map((w) => stack.stop(w)));
    await stack.startWorkers(n, {
      env: { TEXT_DELTA_COALESCE_MS: String(ctx.coalesceMs) },
      cpuProfile: ctx.profile && n === 1,
    });
    log(
      `s4: ${n} worker(s): ${warmupS} s warm-up, ${measureS} s measured, ${users} operators in a closed loop`,
    );
    let measuring = false;
    let stop = false;
    let done = 0;
    let errors = 0;
    const latencies: number[] = [];
    const loops = vus.map(async (vu, i) => {
      let q = i;
      const ended = turnEnds(vu.socket);
      while (!stop) {
        const t0 = nowMs();
        const res = await vu.session.postMessage(
          vu.chatId,
          ONE_TOOL_QUESTIONS[q++ % ONE_TOOL_QUESTIONS.length],
          randomUUID(),
        );
        if ((await ended(res.turnId, 30_000)).type !== 'turn.done') errors++;
        if (measuring) {
          done++;
          latencies.push(nowMs() - t0);
        }
      }
      vu.socket.off('chat:event');
    });
    await sleep(warmupS * 1000);
    const meter = await CpuMeter.start(stack);
    const t0 = nowMs();
    measuring = true;
    const waits = new Map<string, number>();
    let samples = 0;
    const sampler = setInterval(() => {
      void stack.ds
        .query(
          `SELECT state, coalesce(wait_event_type || ':' || wait_event, 'on CPU') AS w FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND state <> 'idle'`,
          [stack.dbName],
        )
        .then((rows: { state: string; w: string }[]) => {
          samples++;
          for (const r of rows) waits.set(r.w, (waits.get(r.w) ?? 0) + 1);
        })
        .catch(() => undefined);
    }, 100);
    await sleep(measureS * 1000);
    clearInterval(sampler);
    measuring = false;
    const elapsed = (nowMs() - t0) / 1000;
    const cpu = await meter.stop();
    stop = true;
    await Promise.all(loops);
    const pgWaits = Object.fromEntries(
      [...waits].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / Math.max(1, samples)]),
    );
    const run: Run = {
      workers: n,
      turns: done,
      turnsPerSecond: done / elapsed,
      latencyMs: summarize(latencies),
      cpu,
      errors,
      pgWaits,
    };
    runs.push(run);
    log(
      `s4: ${n} worker(s): ${fmt(run.turnsPerSecond)} turns/s, POST → done p50 ${fmt(run.latencyMs.p50)} ms`,
    );
  }
  for (const vu of vus) vu.socket.disconnect();
  await stack.stopAll();

  const base = runs[0].turnsPerSecond;
  const best = runs.reduce((a, b) => (b.turnsPerSecond > a.turnsPerSecond ? b : a));
  const projection = project(best);
  const figures: Figure[] = runs.map((r) => ({
    name: `${r.workers} worker${r.workers > 1 ? 's' : ''}: turns/s (× ${fmt(r.turnsPerSecond / base)} of one)`,
    unit: 'turns/s',
    value: r.turnsPerSecond,
  }));
  return {
    id: 4,
    title: 'Scaling out: 1, 2 and 4 workers (built-in planner)',
    figures,
    markdown: [
      `${users} operators, each with one thread and one Socket.IO client, post one-tool questions in a closed loop (the next when turn.done arrives) to one API; ${warmupS} s warm-up, then ${measureS} s measured per worker count; WORKER_CONCURRENCY 8, TEXT_DELTA_COALESCE_MS ${ctx.coalesceMs}.`,
      table(
        ['workers', 'turns/s', '× one worker', 'POST → done p50 ms', 'p99 ms', 'machine busy %', 'errors'],
        runs.map((r) => [
          String(r.workers),
          fmt(r.turnsPerSecond),
          fmt(r.turnsPerSecond / base),
          fmt(r.latencyMs.p50),
          fmt(r.latencyMs.p99),
          fmt((100 * r.cpu.machineBusy) / r.cpu.machineTotal),
          String(r.errors),
        ]),
      ),
      ...runs.flatMap((r) => [
        `CPU by process with ${r.workers} worker(s) (${fmt(r.cpu.seconds)} s, ${r.turns} turns):`,
        cpuTable(r.cpu, r.turns),
      ]),
      'Active Postgres backends of the bench database, sampled every 100 ms: average number in each state (on CPU, or waiting on a lock, WAL flush, client…):',
      table(
        ['wait', ...runs.map((r) => `${r.workers} worker(s)`)],
        [...new Set(runs.flatMap((r) => Object.keys(r.pgWaits)))]
          .slice(0, 10)
          .map((w) => [w, ...runs.map((r) => fmt(r.pgWaits[w] ?? 0))]),
      ),
      projection.markdown,
    ],
    raw: { users, warmupS, measureS, runs, projection: projection.rows },
  };
}

/**
 * Turns/s on a machine with more cores, from the CPU cost per turn of each part measured here:
 * every part but Redis scales by adding processes (API instances, workers; Postgres uses a core
 * per backend), Redis runs commands on one core. Assumes no other load and no I/O limit.
 */
function project(r: Run): { markdown: string; rows: Record<string, number>[] } {
  const perTurn = (name: string) =>
    Object.entries(r.cpu.parts)
      .filter(([k]) => k.startsWith(name))
      .reduce((a, [, s]) => a + (1000 * s) / r.turns, 0);
  const api = perTurn('api');
  const workers = perTurn('worker');
  const pg = perTurn('postgres');
  const redis = perTurn('redis');
  const server = api + workers + pg + redis;
  const rows = [2, 4, 8, 16, 32].map((cores) => {
    const byCores = (cores * 1000) / server;
    const byRedis = 1000 / redis;
    return { cores, turnsPerSecond: Math.min(byCores, byRedis), limitedBy: byCores <= byRedis ? 0 : 1 };
  });
  const markdown = [
    `Projection from the run with ${r.workers} worker(s): CPU per turn on the server side ${fmt(server)} ms (API ${fmt(api)}, workers ${fmt(workers)}, Postgres ${fmt(pg)}, Redis ${fmt(redis)}; the load generator excluded). With the machine to itself and enough API and worker processes, turns/s ≈ cores × 1000 ÷ ${fmt(server)}, until Redis (single-threaded, ${fmt(redis)} ms a turn) caps it at ${fmt(1000 / redis)} turns/s:`,
    table(
      ['cores', 'projected turns/s', 'limited by'],
      rows.map((x) => [
        String(x.cores),
        fmt(x.turnsPerSecond),
        x.limitedBy ? 'Redis (one core)' : 'CPU (all cores)',
      ]),
    ),
  ].join('\n\n');
  return { markdown, rows };
}
