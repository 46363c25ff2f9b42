import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { IMPORT_SOCKET_EVENT, type ImportJobView, type QueuedImportsResponse } from '@corpus-chat/contracts';
import { ApiSession, joinChat, turnEnds } from '../lib/api-client';
import { processRssMiB } from '../lib/machine';
import { timeHttpPost } from '../lib/primitives';
import { type BenchContext, goalFigure, latencyFigure, type ScenarioResult } from '../lib/report';
import { FIRST_EVENT, markTime, type Timed, TURN_END } from './s2-turn-latency';
import { fmt, nowMs, sleep, summarize, table } from '../lib/stats';
import { ONE_TOOL_QUESTIONS, readTrace } from '../lib/turns';
import { type ProbeReading, readProbe } from './s3-one-worker';

const execFileAsync = promisify(execFile);

/**
 * Writes a SARIF 2.1.0 file of about `bytes` bytes (results with long, distinct messages); `round`
 * makes each round's file distinct (the same content would be refused as a duplicate).
 */
export function writeSarif(file: string, bytes: number, round: number): number {
  const out = fs.openSync(file, 'w');
  fs.writeSync(
    out,
    '{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"bench-scanner","version":"1.0"}},"results":[',
  );
  let written = 100;
  let n = 0;
  const filler = 'x'.repeat(1800);
  while (written < bytes - 4000) {
    const result = JSON.stringify({
      ruleId: `BENCH${n % 500}`,
      level: ['error', 'warning', 'note'][n % 3],
      message: { text: `Finding ${round}.${n}: possible SQL injection in handler ${n} ${filler}` },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: `src/module${n % 97}/file${n}.c` },
            region: { startLine: (n % 900) + 1 },
          },
        },
      ],
    });
    const chunk = (n ? ',' : '') + result;
    fs.writeSync(out, chunk);
    written += chunk.length;
    n++;
  }
  fs.writeSync(out, ']}]}');
  fs.closeSync(out);
  return n;
}

/**
 * The hops from the POST to the first event (`turn.queued`, published by the API): [label, from,
 * to] of trace marks ('t0' and 'recv:first' are the harness's).
 */
const HOPS: [string, string, string][] = [
  ['HTTP in (client, guards, rate limits)', 't0', 'api.store'],
  ['store turn (transaction, commit)', 'api.store', 'api.enqueue'],
  ['publish turn.queued (Redis script)', 'api.enqueue', 'published:turn.queued'],
  ['Redis → API relay', 'published:turn.queued', 'relay:turn.queued'],
  ['socket: API emit → client', 'relay:turn.queued', 'recv:first'],
];

/** A timed turn of this scenario: POST → first event and POST → end, in ms. */
type Turn = Timed & { firstMs: number; endMs: number };

const rssBytes = (pid: number) => (processRssMiB(pid) ?? NaN) * 1048576;

/** Uploads files (curl `-F` values) from another process, as a browser does; → the queued imports. */
export async function uploadImports(session: ApiSession, forms: string[]): Promise<ImportJobView[]> {
  const { stdout } = await execFileAsync(
    'curl',
    [
      '-sS',
      '-w',
      '\n%{http_code}',
      ...forms.flatMap((f) => ['-F', f]),
      '-H',
      `cookie: ${session.cookie}`,
      '-H',
      'x-requested-with: XMLHttpRequest',
      `${session.baseUrl}/api/reports/import`,
    ],
    { maxBuffer: 1 << 20 },
  );
  const cut = stdout.lastIndexOf('\n');
  if (stdout.slice(cut + 1) !== '202')
    throw new Error(`upload answered ${stdout.slice(cut + 1)}: ${stdout.slice(0, cut)}`);
  return (JSON.parse(stdout.slice(0, cut)) as QueuedImportsResponse).imports;
}

/**
 * Scenario 7 — turn latency with and without a ~50 MB SARIF import running, and the API's peak RSS.
 */
export async function scenario7(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, log } = ctx;
  const apiTrace = path.join(ctx.logsDir, 'trace-s7-api.jsonl');
  const fileBytes = ctx.quick ? 10 * 1024 * 1024 : 49 * 1024 * 1024;
  // Rounds of turns without an import, then with one, so both p99s rest on a few thousand samples
  // taken alternately (the p99 of one import's ~700 turns is its 7th slowest; the host drifts).
  const rounds = ctx.quick ? 1 : 3;
  const baselineTurns = ctx.quick ? 60 : 800;
  const api = await stack.startApi({ env: { TURN_TRACE_FILE: apiTrace } });
  ctx.primitives.http = await timeHttpPost(api.baseUrl);
  const [worker] = await stack.startWorkers(1, {
    env: { TEXT_DELTA_COALESCE_MS: String(ctx.coalesceMs) },
    probe: true,
    cpuProfile: ctx.profile,
  });
  /** The worker's event-loop lag while turns and the import run together, one reading per round. */
  const lagDuring: ProbeReading['eventLoopLagMs'][] = [];
  const session = await ApiSession.login(api.baseUrl, stack.adminUser, stack.adminPassword);
  await session.putSettings({ backend: 'builtin' });
  const threads: string[] = [];
  for (let i = 0; i < 10; i++) threads.push((await session.createChat(`bench s7 ${i}`)).id);
  const socket = await session.connectSocket();
  for (const id of threads) await joinChat(socket, id);

  const first = new Map<string, number>();
  const ended = turnEnds(socket, (e, t) => void (first.has(e.turnId) || first.set(e.turnId, t)));
  const imports = new Map<string, ImportJobView>();
  socket.on(IMPORT_SOCKET_EVENT, (job: ImportJobView) => imports.set(job.id, job));

  let turnIndex = 0;
  /** One turn into `into`: POST → first event (`firstMs`), then POST → its end (`endMs`). */
  const oneTurn = async (into: Turn[]): Promise<void> => {
    const question = ONE_TOOL_QUESTIONS[turnIndex % ONE_TOOL_QUESTIONS.length];
    const chatId = threads[turnIndex++ % threads.length];
    const t0 = nowMs();
    const res = await session.postMessage(chatId, question, randomUUID());
    // Long: the worker process that runs the turn also parses the import.
    const endMs = (await ended(res.turnId, 600_000)).at - t0;
    const at = first.get(res.turnId)!;
    into.push({ turnId: res.turnId, t0, received: new Map([['first', at]]), firstMs: at - t0, endMs });
  };

  for (let i = 0; i < 20; i++) await oneTurn([]); // warm-up

  const without: Turn[] = [];
  const during: Turn[] = [];
  /** Per round: when each turn during the import was posted (ms after its upload began) and the import's status changes. */
  const timelines: { duringAtMs: number[]; statusAt: { ms: number; status: string }[] }[] = [];
  const importSeconds: number[] = [];
  const rssBefore = rssBytes(api.pid);
  let rssPeak = rssBefore;
  let results = 0;
  let size = 0;
  let findingCount: number | undefined;
  const file = path.join(ctx.logsDir, 's7-import.sarif');
  for (let round = 0; round < rounds; round++) {
    log(`s7 round ${round + 1}/${rounds}: ${baselineTurns} turns without an import`);
    for (let i = 0; i < baselineTurns; i++) await oneTurn(without);

    results = writeSarif(file, fileBytes, round);
    size = fs.statSync(file).size;
    log(
      `s7 round ${round + 1}/${rounds}: importing ${(size / 1048576).toFixed(1)} MiB (${results} SARIF results) while posting turns`,
    );
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        rssPeak = Math.max(rssPeak, rssBytes(api.pid));
        await sleep(25);
      }
    })();
    await readProbe(worker!, true);
    const t0 = nowMs();
    const timeline = { duringAtMs: [] as number[], statusAt: [] as { ms: number; status: string }[] };
    timelines.push(timeline);
    const onImport = (job: ImportJobView) => timeline.statusAt.push({ ms: nowMs() - t0, status: job.status });
    socket.on(IMPORT_SOCKET_EVENT, onImport);
    // Uploaded by another process (curl), as by another operator's browser: sending 49 MB from this
    // process would hold the event loop that times the chat's events.
    const upload = uploadImports(session, [`files=@${file};filename=s7-import-${round}.sarif`]).then(
      (queued) => queued[0]!,
    );
    let accepted: ImportJobView | undefined;
    void upload.then((job) => (accepted = job));
    const importEnded = () =>
      accepted &&
      imports.get(accepted.id) &&
      !['queued', 'parsing'].includes(imports.get(accepted.id)!.status);
    try {
      while (!importEnded()) {
        timeline.duringAtMs.push(nowMs() - t0);
        await oneTurn(during);
        if (nowMs() - t0 > 600_000) throw new Error('the import did not end within 10 minutes');
      }
      importSeconds.push((nowMs() - t0) / 1000);
      lagDuring.push((await readProbe(worker!)).eventLoopLagMs);
    } finally {
      sampling = false;
      await sampler;
      socket.off(IMPORT_SOCKET_EVENT, onImport);
    }
    const job = imports.get((await upload).id)!;
    if (job.status !== 'ready') throw new Error(`the import ended ${job.status}: ${job.error}`);
    findingCount = job.outcome?.ok ? job.outcome.findingCount : undefined;
    fs.rmSync(file, { force: true });
  }
  socket.disconnect();
  const index = await readTrace([apiTrace]);
  await stack.stopAll();
  await stack.clearRedis();

  const hopRows = HOPS.map(([label, from, to]) => {
    const hop = (t: Timed) => markTime(index, t, to) - markTime(index, t, from);
    const w = summarize(without.map(hop));
    const d = summarize(during.map(hop));
    return [label, fmt(w.p50), fmt(d.p50), fmt(w.p99), fmt(d.p99)];
  });
  const withoutSummary = summarize(without.map((t) => t.firstMs));
  const duringSummary = summarize(during.map((t) => t.firstMs));
  const mib = (b: number) => b / 1048576;
  const ratio = duringSummary.p99 / withoutSummary.p99;
  const lagP99 = Math.max(...lagDuring.map((l) => l.p99));
  const lagMax = Math.max(...lagDuring.map((l) => l.max));
  return {
    id: 7,
    title: 'A chat turn during a 50 MB import',
    figures: [
      latencyFigure('POST message → first chat:event, no import', withoutSummary, FIRST_EVENT),
      latencyFigure('POST message → first chat:event, during the import', duringSummary, FIRST_EVENT),
      latencyFigure('POST message → turn end, no import', summarize(without.map((t) => t.endMs)), TURN_END),
      latencyFigure(
        'POST message → turn end, during the import (same worker process)',
        summarize(during.map((t) => t.endMs)),
        TURN_END,
      ),
      goalFigure('during / without (p99)', '×', ratio, '≤ 1.2×', ratio <= 1.2),
      goalFigure(
        'worker event-loop lag during the import, p99 (worst round)',
        'ms',
        lagP99,
        '≤ 50 ms',
        lagP99 <= 50,
      ),
      goalFigure('worker event-loop lag during the import, max', 'ms', lagMax, '≤ 250 ms', lagMax <= 250),
      { name: 'API RSS before the import', unit: 'MiB', value: mib(rssBefore) },
      { name: 'API peak RSS during the import', unit: 'MiB', value: mib(rssPeak) },
      {
        name: 'upload → import ready (median of the rounds)',
        unit: 's',
        value: [...importSeconds].sort((x, y) => x - y)[importSeconds.length >> 1],
      },
    ],
    markdown: [
      `${rounds} rounds, each ${baselineTurns} turns without an import and then a ${mib(size).toFixed(1)} MiB SARIF file (${results} results, ${findingCount ?? '?'} findings; distinct content each round) uploaded to the API by another process and imported by one agent-worker (IMPORT_CONCURRENCY 1) while one operator posted one-tool questions one at a time (built-in planner, the same worker process); ${during.length} turns during the imports, ${without.length} without. Alternating rounds keep the host's drift out of the ratio; upload → ready ${importSeconds.map((x) => x.toFixed(1)).join(', ')} s. POST → first event by hop (ms, the API's trace marks and the client's receipt, one monotonic clock):`,
      table(['hop', 'p50 without', 'p50 during', 'p99 without', 'p99 during'], hopRows),
    ],
    raw: {
      fileBytes: size,
      results,
      withoutMs: without.map((t) => t.firstMs),
      duringMs: during.map((t) => t.firstMs),
      timelines,
      rssBefore,
      rssPeak,
      importSeconds,
      hopRows,
      lagDuring,
    },
  };
}
