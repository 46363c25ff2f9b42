import path from 'node:path';
import { JobNames } from '@corpus-chat/contracts';
import { ApiSession } from '../lib/api-client';
import { type CpuBreakdown, CpuMeter, cpuTable } from '../lib/cpu-meter';
import { processCpuSeconds, processRssMiB } from '../lib/machine';
import { type BenchContext, goalFigure, type Figure, type ScenarioResult } from '../lib/report';
import { fmt, sleep, summarize, table } from '../lib/stats';
import { type MetricsAgreement, MetricsWatch } from '../lib/metrics';
import { freePort, type Proc } from '../lib/stack';
import {
  openTurns,
  operatorId,
  markAt,
  prepareTurns,
  readTrace,
  turnQueue,
  turnJobOpts,
  turnStatusCounts,
  waitTurnsEnded,
} from '../lib/turns';
import { modelMsPerTurn } from '../stub-model/stub-model.config';

/** What the runtime probe preloaded into the worker answers. */
export interface ProbeReading {
  eventLoopLagMs: { p50: number; p99: number; max: number; mean: number; samples: number };
  rssMiB: number;
  heapUsedMiB: number;
  cpuSeconds: number;
}

/** Reads (and with `reset`, restarts) a process's runtime probe. */
export async function readProbe(proc: Proc, reset = false): Promise<ProbeReading> {
  const res = await fetch(`http://127.0.0.1:${proc.probePort}/${reset ? '?reset=1' : ''}`);
  return (await res.json()) as ProbeReading;
}

/** One concurrency level's measurement. */
interface Level {
  concurrency: number;
  /**
   * `at once` (every job added together) or `staggered` (the first C spread over one model time,
   * as independent operators' turns are).
   */
  arrival: Arrival;
  turns: number;
  /** Turns/s between the end of the first wave and the last turn (steady state). */
  throughput: number;
  /** Turns/s from the first job added to the last turn done (ramp-up included). */
  overall: number;
  ideal: number;
  efficiency: number;
  lagP99: number;
  lagMax: number;
  peakRssMiB: number;
  workerCpuMsPerTurn: number;
  stubCpuMsPerTurn: number;
  /** Resident memory of the worker just before the jobs were added. */
  idleRssMiB: number;
  /** V8 heap in use just before the jobs were added, and its peak during the run (sampled every 200 ms). */
  idleHeapMiB: number;
  peakHeapMiB: number;
  cpu: CpuBreakdown;
  /** Seconds from pickup (turn marked running) to done: model time plus ours. */
  turnSecondsP50: number;
  statuses: Record<string, number>;
  /** Median ms of each stage of a turn in the worker (model waits subtracted where marked). */
  hops: Record<string, number>;
  /** The worker's `/metrics` against the bench's own counts. */
  metrics: MetricsAgreement;
}

/**
 * Postgres connections of the worker in this scenario (`DB_POOL_SIZE`; the default 10 makes the
 * turns' short transactions queue for a connection at high concurrency). The server allows 100.
 */
const S3_DB_POOL = 40;

/**
 * Stages of a model turn in the worker, from its trace marks: [label, from, to]. A mark name
 * ending in `#2` is that mark's second occurrence (the second model step's request).
 */
const TURN_STAGES: [string, string, string][] = [
  ['pickup → turn.started (load, mark running)', 'worker.picked', 'published:turn.started'],
  ['→ runner start (history)', 'published:turn.started', 'worker.runner-start'],
  ['→ first model request sent (settings, context)', 'worker.runner-start', 'model.request'],
  ['→ response headers', 'model.request', 'model.headers'],
  ["→ tool call published, minus the model's first-token wait", 'model.headers', 'published:tool.call'],
  ['tool call → result (query, read-only transaction)', 'published:tool.call', 'publish:tool.result'],
  ['→ second model request sent', 'publish:tool.result', 'model.request#2'],
  ['→ response headers', 'model.request#2', 'model.headers#2'],
  ['→ answer streamed (deltas)', 'model.headers#2', 'worker.runner-end'],
  ['→ answer stored', 'worker.runner-end', 'worker.finished'],
  ['→ turn.done published', 'worker.finished', 'published:turn.done'],
];

/** Median of each stage over `turnIds` (the first-token wait `ttftMs` is taken out of its stage). */
async function turnHops(trace: string, turnIds: string[], ttftMs: number): Promise<Record<string, number>> {
  const index = await readTrace([trace]);
  const out: Record<string, number> = {};
  TURN_STAGES.forEach(([label, from, to], i) => {
    const model = to === 'published:tool.call' ? ttftMs : 0;
    // Labels repeat ('→ response headers'): the table shows them in order, keyed by position.
    out[`${i + 1}. ${label}`] = summarize(
      turnIds.map((id) => markAt(index, id, to) - markAt(index, id, from) - model),
    ).p50;
  });
  return out;
}

/**
 * Scenario 3 — one worker, many slow turns (`waves × C` jobs, WORKER_CONCURRENCY = C): throughput
 * against C ÷ model time, event-loop lag, peak RSS, and the knee (below 80 % of ideal).
 */
export async function scenario3(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, log } = ctx;
  const atOnce = ctx.quick ? [500] : [50, 100, 200, 300, 500, 750, 1000];
  const levels = [...atOnce.map((c) => [c, 'at once'] as const), [500, 'staggered'] as const];
  const waves = ctx.quick ? 2 : 3;
  const stub = await stack.startStub();
  const modelMs = modelMsPerTurn(stub.config);
  const api = await stack.startApi();
  const session = await ApiSession.login(api.baseUrl, stack.adminUser, stack.adminPassword);
  await session.putSettings({ backend: 'openai', baseUrl: stub.baseUrl, model: 'bench-stub' });
  const owner = await operatorId(stack, stack.adminUser);
  const queue = turnQueue(stack);
  await queue.waitUntilReady();

  const results: Level[] = [];
  for (const [c, arrival] of levels) {
    const total = c * waves;
    const name = arrival === 'at once' ? `concurrency ${c}` : `concurrency ${c}, ${arrival}`;
    await stack.ds.query(`DELETE FROM chat_sessions`);
    log(`s3: ${name}: preparing ${total} turns`);
    const question = () => 'How many findings mention cookies?';
    const warm = await prepareTurns(stack, owner, Math.min(c, 100), question);
    const turns = await prepareTurns(stack, owner, total, question);
    const ids = turns.map((t) => t.turnId);
    const trace = path.join(ctx.logsDir, `trace-s3-${c}${arrival === 'at once' ? '' : `-${arrival}`}.jsonl`);
    const metricsPort = await freePort();
    const [worker] = await stack.startWorkers(1, {
      env: {
        METRICS_PORT: String(metricsPort),
        WORKER_CONCURRENCY: String(c),
        TEXT_DELTA_COALESCE_MS: String(ctx.coalesceMs),
        DB_POOL_SIZE: String(Math.min(c, S3_DB_POOL)),
        TURN_TRACE_FILE: trace,
      },
      probe: true,
      cpuProfile: ctx.profile && c === 500 && arrival === 'at once',
    });
    const add = (batch: typeof turns) =>
      queue.addBulk(
        batch.map((t) => ({ name: JobNames.runTurn, data: t, opts: turnJobOpts(t.turnId, true) })),
      );
    // A warm-up wave first (JIT, connection pools, query cache), then the measured waves.
    await add(warm);
    await waitTurnsEnded(stack, 60_000, warm);
    await sleep(300);
    const idle = await readProbe(worker, true);
    const queueIdle = async () => {
      const jobs = await queue.getJobCounts('waiting', 'active');
      return jobs['waiting'] + jobs['active'] === 0;
    };
    const watch = await MetricsWatch.start(metricsPort, queueIdle);
    const meter = await CpuMeter.start(stack);
    const cpu0 = processCpuSeconds(worker.pid) ?? 0;
    const stubCpu0 = processCpuSeconds(stub.pid) ?? 0;
    let peakRss = 0;
    let peakHeap = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, processRssMiB(worker.pid) ?? 0);
      void readProbe(worker)
        .then((p) => (peakHeap = Math.max(peakHeap, p.heapUsedMiB)))
        .catch(() => undefined);
    }, 200);
    const t0 = Date.now();
    let rest = turns;
    if (arrival === 'staggered') {
      // The first wave spread evenly over one model time, in batches every STAGGER_STEP_MS.
      const steps = Math.max(1, Math.round(modelMs / STAGGER_STEP_MS));
      for (let i = 0; i < steps; i++) {
        await add(turns.slice(Math.floor((i * c) / steps), Math.floor(((i + 1) * c) / steps)));
        await sleep(Math.max(0, t0 + ((i + 1) * modelMs) / steps - Date.now()));
      }
      rest = turns.slice(c);
    }
    for (let i = 0; i < rest.length; i += 500) await add(rest.slice(i, i + 500));
    log(`s3: ${name}: ${total} jobs added; waiting`);
    watch.follow(() => openTurns(stack, turns));
    await waitTurnsEnded(stack, waves * modelMs * 4 + 60_000);
    const metricsCheck = await watch.stop(total, queueIdle);
    clearInterval(sampler);
    const probe = await readProbe(worker);
    const breakdown = await meter.stop();
    const cpu = (processCpuSeconds(worker.pid) ?? 0) - cpu0;
    const stubCpu = (processCpuSeconds(stub.pid) ?? 0) - stubCpu0;
    const rows: { started: Date; finished: Date }[] = await stack.ds.query(
      `SELECT started_at AS started, finished_at AS finished FROM chat_turns WHERE finished_at IS NOT NULL AND id = ANY($1::uuid[]) ORDER BY finished_at`,
      [ids],
    );
    const done = rows.map((r) => r.finished.getTime());
    const steady =
      done.length >= total && waves > 1 ? ((waves - 1) * c) / ((done[total - 1] - done[c - 1]) / 1000) : NaN;
    const overall = done.length / ((done[done.length - 1] - t0) / 1000);
    const ideal = c / (modelMs / 1000);
    const durations = rows
      .map((r) => (r.finished.getTime() - r.started.getTime()) / 1000)
      .sort((a, b) => a - b);
    const level: Level = {
      concurrency: c,
      arrival,
      turns: total,
      throughput: steady,
      overall,
      ideal,
      efficiency: steady / ideal,
      lagP99: probe.eventLoopLagMs.p99,
      lagMax: probe.eventLoopLagMs.max,
      peakRssMiB: Math.max(peakRss, probe.rssMiB),
      idleRssMiB: idle.rssMiB,
      idleHeapMiB: idle.heapUsedMiB,
      peakHeapMiB: peakHeap,
      cpu: breakdown,
      workerCpuMsPerTurn: (cpu * 1000) / total,
      stubCpuMsPerTurn: (stubCpu * 1000) / total,
      turnSecondsP50: durations[Math.floor(durations.length / 2)] ?? NaN,
      statuses: await turnStatusCounts(stack),
      hops: await turnHops(trace, ids, stub.config.ttftMs),
      metrics: metricsCheck,
    };
    results.push(level);
    log(
      `s3: ${name}: ${fmt(steady)} turns/s (${fmt(100 * level.efficiency)} % of ${fmt(ideal)}), lag p99 ${fmt(level.lagP99)} ms, RSS ${fmt(level.peakRssMiB)} MiB`,
    );
    await stack.stop(worker);
    await cleanFinishedJobs(queue);
  }
  await queue.close();

  const burst = results.filter((r) => r.arrival === 'at once');
  const at500 = burst.find((r) => r.concurrency === 500);
  const staggered = results.find((r) => r.arrival === 'staggered');
  const cpuMarkdown = at500
    ? [
        `CPU by process at C = 500 (${fmt(at500.cpu.seconds)} s of wall time, ${at500.turns} turns):`,
        cpuTable(at500.cpu, at500.turns),
      ]
    : [];
  const knee = burst.find((r) => r.efficiency < 0.8);
  const figures: Figure[] = [];
  if (at500) figures.push(...goalFigures('C = 500, jobs added at once', at500));
  figures.push({
    name: 'knee (first C below 80 % of ideal)',
    unit: 'turns at once',
    value: knee?.concurrency ?? NaN,
  });
  if (staggered) figures.push(...goalFigures('C = 500, staggered arrivals', staggered));
  return {
    id: 3,
    title: 'One worker process, many slow turns',
    figures,
    markdown: [
      `Stub model: ${stub.config.ttftMs} ms to the tool call, then ${stub.config.deltas} deltas ${stub.config.deltaIntervalMs} ms apart: ${fmt(modelMs)} ms of model time per turn; ideal = C ÷ ${fmt(modelMs / 1000)} s. One agent-worker (WORKER_CONCURRENCY = C, DB_POOL_SIZE = min(C, ${S3_DB_POOL})), warmed up with min(C, 100) turns, gets ${waves} × C jobs at once; throughput is measured from the end of the first wave to the last turn. ${knee ? `Knee: C = ${knee.concurrency}.` : `No knee up to C = ${burst[burst.length - 1]?.concurrency} (every level ≥ 80 % of ideal).`} Jobs added at once: the first wave's turns start, reach the model and come back together, and stay in step (the stub's time does not vary); "staggered" adds the first C jobs evenly over one model time (in batches every ${STAGGER_STEP_MS} ms) and the rest at once behind them, so the closed loop keeps the turns spread as independent operators' turns are. Both are judged against the goals; the at-once run is the worst case.`,
      table(
        [
          'C',
          'arrivals',
          'turns',
          'turns/s',
          'ideal',
          '% of ideal',
          'turn s (p50)',
          'lag p99 ms',
          'lag max ms',
          'idle RSS / heap MiB',
          'peak RSS / heap MiB',
          'worker CPU ms/turn',
          'stub CPU ms/turn',
        ],
        results.map((r) => [
          String(r.concurrency),
          r.arrival,
          String(r.turns),
          fmt(r.throughput),
          fmt(r.ideal),
          fmt(100 * r.efficiency),
          fmt(r.turnSecondsP50),
          fmt(r.lagP99),
          fmt(r.lagMax),
          `${fmt(r.idleRssMiB)} / ${fmt(r.idleHeapMiB)}`,
          `${fmt(r.peakRssMiB)} / ${fmt(r.peakHeapMiB)}`,
          fmt(r.workerCpuMsPerTurn),
          fmt(r.stubCpuMsPerTurn),
        ]),
      ),
      "Where a turn spends its time in the worker beyond the model (median ms per stage, from the worker's trace marks):",
      table(
        [
          'stage',
          ...results.map((r) => `C = ${r.concurrency}${r.arrival === 'at once' ? '' : ` (${r.arrival})`}`),
        ],
        TURN_STAGES.map(([label], i) => [label, ...results.map((r) => fmt(r.hops[`${i + 1}. ${label}`]))]),
      ),
      ...cpuMarkdown,
      "The worker's /metrics against the bench's own counts: queue depth (`corpus_chat_queue_jobs`, " +
        'chat-turns, every state but failed) beside the turns not yet ended in Postgres, read ' +
        'together once a second while the turns ran (where they differed most, and the median gap); ' +
        'and the turns `corpus_chat_turn_duration_seconds` counted when Postgres had all ended and ' +
        'once the jobs completed.',
      table(
        [
          'C',
          'arrivals',
          'readings',
          'widest: depth / open',
          'median gap',
          'counted at end / settled',
          'turns run',
        ],
        results.map(({ concurrency, arrival, metrics: m }) => [
          String(concurrency),
          arrival,
          String(m.samples),
          `${m.widest.depth} / ${m.widest.open}`,
          String(m.medianGap),
          `${m.countedAtEnd} / ${m.counted}`,
          String(m.turns),
        ]),
      ),
    ],
    raw: { levels: results, waves, stub: stub.config, modelMs },
  };
}

/** The three goals of issue 35 for one level, and its share of the ideal. */
function goalFigures(label: string, level: Level): Figure[] {
  return [
    goalFigure(
      `${label}: throughput (steady state)`,
      'turns/s',
      level.throughput,
      `≥ 90 % of ideal (${fmt(level.ideal)} turns/s)`,
      level.efficiency >= 0.9,
    ),
    { name: `${label}: throughput ÷ ideal`, unit: '%', value: 100 * level.efficiency },
    goalFigure(`${label}: event-loop lag p99`, 'ms', level.lagP99, '≤ 20 ms', level.lagP99 <= 20),
    goalFigure(`${label}: peak RSS`, 'MiB', level.peakRssMiB, '≤ 250 MiB', level.peakRssMiB <= 250),
  ];
}

type Arrival = 'at once' | 'staggered';

/** Milliseconds between the batches of a staggered first wave. */
const STAGGER_STEP_MS = 20;

/** Nothing is left in the queue between levels (every turn ended); drop finished jobs' keys. */
async function cleanFinishedJobs(queue: ReturnType<typeof turnQueue>): Promise<void> {
  await queue.clean(0, 100_000, 'completed');
  await queue.clean(0, 100_000, 'failed');
}
