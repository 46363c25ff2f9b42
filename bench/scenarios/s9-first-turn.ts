import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ApiSession, joinChat, turnEnds } from '../lib/api-client';
import { type BenchContext, latencyFigure, type ScenarioResult } from '../lib/report';
import { fmt, nowMs, summarize, table } from '../lib/stats';
import { ONE_TOOL_QUESTIONS, readTrace } from '../lib/turns';
import { HOPS, markTime } from './s2-turn-latency';

/**
 * Scenario 9 — the first turn after a restart of the API and a worker, against warm turns, by hop.
 */
export async function scenario9(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, log } = ctx;
  const restarts = ctx.quick ? 3 : 10;
  const warmTurns = ctx.quick ? 20 : 50;
  let api = await stack.startApi();
  const session = await ApiSession.login(api.baseUrl, stack.adminUser, stack.adminPassword);
  await session.putSettings({ backend: 'builtin' });
  const threads: string[] = [];
  for (let i = 0; i <= warmTurns; i++) threads.push((await session.createChat(`bench s9 ${i}`)).id);
  await stack.stopAll();

  const first: number[] = [];
  const warm: number[] = [];
  const ready: { api: number; worker: number }[] = [];
  const hopRows: string[][] = HOPS.map(([label]) => [label]);
  log(`s9: ${restarts} restarts, each 1 first turn + ${warmTurns} warm turns`);
  for (let r = 0; r < restarts; r++) {
    const traces = ['api', 'worker'].map((p) => path.join(ctx.logsDir, `trace-s9-${r}-${p}.jsonl`));
    let t = nowMs();
    api = await stack.startApi({ env: { TURN_TRACE_FILE: traces[0] }, cpuProfile: ctx.profile });
    const apiReady = nowMs() - t;
    t = nowMs();
    await stack.startWorkers(1, { env: { TURN_TRACE_FILE: traces[1] }, cpuProfile: ctx.profile });
    ready.push({ api: apiReady, worker: nowMs() - t });
    const client = session.at(api.baseUrl);
    const socket = await client.connectSocket();
    const ended = turnEnds(socket);
    const turn = async (i: number) => {
      await joinChat(socket, threads[i]);
      const t0 = nowMs();
      const res = await client.postMessage(
        threads[i],
        ONE_TOOL_QUESTIONS[i % ONE_TOOL_QUESTIONS.length],
        randomUUID(),
      );
      const { type, at: end } = await ended(res.turnId, 30_000);
      if (type !== 'turn.done') throw new Error(`turn ${res.turnId} ended with ${type}`);
      return { turnId: res.turnId, t0, received: new Map([['turn.done', end]]), ms: end - t0 };
    };
    const timed: Awaited<ReturnType<typeof turn>>[] = [];
    for (let i = 0; i <= warmTurns; i++) timed.push(await turn(i));
    socket.disconnect();
    await stack.stopAll();
    first.push(timed[0].ms);
    warm.push(...timed.slice(1).map((x) => x.ms));
    const index = await readTrace(traces);
    const hop = (x: (typeof timed)[0], mark: string) => markTime(index, x, mark);
    HOPS.forEach(([, from, to], h) => {
      const warmHop = summarize(timed.slice(1).map((x) => hop(x, to) - hop(x, from)));
      hopRows[h].push(`${fmt(hop(timed[0], to) - hop(timed[0], from))} / ${fmt(warmHop.p50)}`);
    });
    log(`s9: round ${r + 1}: first turn ${fmt(timed[0].ms)} ms, warm p50 ${fmt(summarize(warm).p50)} ms`);
  }
  const firstSummary = summarize(first);
  const warmSummary = summarize(warm);
  const ratio = firstSummary.p50 / warmSummary.p50;
  return {
    id: 9,
    title: 'The first turn after a start',
    figures: [
      latencyFigure('first turn after a start: POST → turn.done', firstSummary),
      latencyFigure('warm turn: POST → turn.done', warmSummary),
      { name: 'first ÷ warm (p50)', unit: '×', value: ratio, goal: '≤ 2×', met: ratio <= 2 },
      latencyFigure('API: start → ready (health check answers)', summarize(ready.map((x) => x.api))),
      latencyFigure('agent-worker: start → ready', summarize(ready.map((x) => x.worker))),
    ],
    markdown: [
      `${restarts} restarts of the API and one agent-worker (production build); after each, one client that signed in before reconnects its socket and posts a one-tool question (built-in planner), then ${warmTurns} more, one at a time. By hop, first turn / warm p50 of the same round (ms):`,
      table(['hop', ...first.map((_, r) => `round ${r + 1}`)], hopRows),
    ],
    raw: { first, warm, ready },
  };
}
