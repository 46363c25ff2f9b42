import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { storeTestTurn } from '@corpus-chat/persistence/testing';
import type { HistoryMessage, RunnerEvent } from '@corpus-chat/server-core';
import { ChatRepository, TurnLedger } from '@corpus-chat/persistence';
import { CorpusTools, defaultCorpusQueries, defaultReadOnly } from '@corpus-chat/corpus-queries';
import { PlannerRunner } from '../../apps/agent-worker/src/agent';
import { ApiSession, joinChat, turnEnds } from '../lib/api-client';
import { type PrimitiveName, timeHttpPost } from '../lib/primitives';
import { type BenchContext, type Figure, latencyFigure, type ScenarioResult } from '../lib/report';
import { fmt, nowMs, summarize, type Summary, table } from '../lib/stats';
import { markAt, ONE_TOOL_QUESTIONS, operatorId, readTrace, type TraceIndex } from '../lib/turns';

/** The primitives POST → first event is made of: the request, the stored turn, its first event's publish. */
export const FIRST_EVENT: PrimitiveName[] = ['http', 'commit', 'socket'];
/** …and of POST → turn end: the same plus the job's hand-over to a worker (model time excluded). */
export const TURN_END: PrimitiveName[] = ['http', 'commit', 'bullmq', 'socket'];

/** A timed turn: when it was posted and when the client received each type of its events. */
export interface Timed {
  turnId: string;
  t0: number;
  received: Map<string, number>;
}

/** The hops of one turn, in path order: [label, from, to] of trace marks ('t0', 'recv:<type>' for the harness). */
export const HOPS: [string, string, string][] = [
  ['HTTP → handler (auth, rate limit, body validation)', 't0', 'api.store'],
  ['store (one transaction: checks, rows, message budget, commit)', 'api.store', 'api.enqueue'],
  ['enqueue (publish turn.queued + Queue.add)', 'api.enqueue', 'api.job-added'],
  ['pickup (job added → processor start)', 'api.job-added', 'worker.picked'],
  ['worker: load turn, mark running, publish turn.started', 'worker.picked', 'published:turn.started'],
  ['worker: history, cancel watch → runner start', 'published:turn.started', 'worker.runner-start'],
  ['tool query (tool.call published → tool.result publish)', 'published:tool.call', 'publish:tool.result'],
  ['answer streamed (tool.result + text deltas published)', 'publish:tool.result', 'worker.runner-end'],
  ['store answer (ledger.finish)', 'worker.runner-end', 'worker.finished'],
  ['publish turn.done (Redis script round trip)', 'publish:turn.done', 'published:turn.done'],
  ['Redis → API relay (turn.done)', 'publish:turn.done', 'relay:turn.done'],
  ['socket: API emit → client (turn.done)', 'relay:turn.done', 'recv:turn.done'],
];

/** The time (ms) of a trace mark of `t`, of its POST ('t0') or of its receipt of an event ('recv:<type>'). */
export function markTime(index: TraceIndex, t: Timed, mark: string): number {
  if (mark === 't0') return t.t0;
  if (mark.startsWith('recv:')) return t.received.get(mark.slice(5)) ?? NaN;
  return markAt(index, t.turnId, mark);
}

/** Every publish → published pair of a turn's events (the Redis script's round trip), in ms. */
function publishRoundTrips(index: TraceIndex, turns: { turnId: string }[]): number[] {
  const out: number[] = [];
  for (const { turnId } of turns) {
    const marks = index.get(turnId);
    if (!marks) continue;
    for (const [name, starts] of marks) {
      if (!name.startsWith('publish:')) continue;
      const ends = marks.get(`published:${name.slice(8)}`) ?? [];
      starts.forEach((s, i) => ends[i] !== undefined && out.push(ends[i] - s));
    }
  }
  return out;
}

/**
 * Scenario 2 — what a turn costs beyond the model (built-in planner): POST → first event and →
 * `turn.done`, by hop, and the same turns in-process.
 */
export async function scenario2(ctx: BenchContext): Promise<ScenarioResult> {
  const { stack, log } = ctx;
  const count = ctx.quick ? 200 : 1000;
  const warmup = ctx.quick ? 50 : 100;
  const threadCount = ctx.quick ? 20 : 50;
  const apiTrace = path.join(ctx.logsDir, 'trace-s2-api.jsonl');
  const workerTrace = path.join(ctx.logsDir, 'trace-s2-worker.jsonl');
  const api = await stack.startApi({ env: { TURN_TRACE_FILE: apiTrace }, cpuProfile: ctx.profile });
  await stack.startWorkers(1, {
    env: { TURN_TRACE_FILE: workerTrace, TEXT_DELTA_COALESCE_MS: String(ctx.coalesceMs) },
    cpuProfile: ctx.profile,
  });
  ctx.primitives.http = await timeHttpPost(api.baseUrl);
  const session = await ApiSession.login(api.baseUrl, stack.adminUser, stack.adminPassword);
  await session.putSettings({ backend: 'builtin' });
  const threads: string[] = [];
  for (let i = 0; i < threadCount; i++) threads.push((await session.createChat(`bench s2 ${i}`)).id);
  const socket = await session.connectSocket();
  for (const id of threads) await joinChat(socket, id);

  const received = new Map<string, Map<string, number>>();
  const ended = turnEnds(socket, (e, t) => {
    let byType = received.get(e.turnId);
    if (!byType) received.set(e.turnId, (byType = new Map()));
    if (!byType.has(e.type)) byType.set(e.type, t);
  });

  log(`s2: ${warmup} warm-up + ${count} turns, one at a time, over ${threadCount} threads`);
  const timed: (Timed & { response: number })[] = [];
  for (let i = 0; i < warmup + count; i++) {
    const question = ONE_TOOL_QUESTIONS[i % ONE_TOOL_QUESTIONS.length];
    const t0 = nowMs();
    const res = await session.postMessage(threads[i % threadCount], question, randomUUID());
    const response = nowMs();
    const end = await ended(res.turnId, 15_000);
    if (end.type !== 'turn.done') throw new Error(`turn ${res.turnId} ended with ${end.type}`);
    if (i >= warmup) timed.push({ turnId: res.turnId, t0, response, received: received.get(res.turnId)! });
  }
  socket.disconnect();
  const index = await readTrace([apiTrace, workerTrace]);
  await stack.stopAll();

  const firstEvent = timed.map((t) => Math.min(...t.received.values()) - t.t0);
  const toDone = timed.map((t) => (t.received.get('turn.done') ?? NaN) - t.t0);
  const httpResponse = timed.map((t) => t.response - t.t0);
  const row = (label: string, s: Summary) => [label, fmt(s.p50), fmt(s.p95), fmt(s.p99), fmt(s.mean)];
  const hops: Record<string, Summary> = {};
  const hopRows = HOPS.map(([label, from, to]) => {
    hops[label] = summarize(timed.map((t) => markTime(index, t, to) - markTime(index, t, from)));
    return row(label, hops[label]);
  });
  const publishRtt = summarize(publishRoundTrips(index, timed));
  hopRows.push(row('(every event publish: Redis script round trip)', publishRtt));
  const queuedToClient = summarize(
    timed.map((t) => markTime(index, t, 'recv:turn.queued') - markTime(index, t, 'publish:turn.queued')),
  );
  hopRows.push(row('(turn.queued: publish → client)', queuedToClient));
  const deltas = timed.map((t) => index.get(t.turnId)?.get('publish:text.delta')?.length ?? 0);

  // The same turns in-process: the planner and its tool query on a DataSource, nothing else.
  const inProcess = await runInProcess(ctx, warmup, count, threadCount);

  const figures: Figure[] = [
    latencyFigure('POST message → first chat:event at the client', summarize(firstEvent), FIRST_EVENT, {
      p: 'p50',
      times: 3,
    }),
    latencyFigure('POST message → turn.done at the client (one-tool question)', summarize(toDone), TURN_END),
    latencyFigure('POST message → HTTP 202 response', summarize(httpResponse), ['http', 'commit', 'bullmq']),
    latencyFigure(
      'in-process: planner + tool query (no DB writes, queue or socket)',
      inProcess.runner,
      'postgres',
    ),
    latencyFigure(
      'in-process: + the same DB writes (store message, mark running, history, store answer)',
      inProcess.withLedger,
      ['postgres', 'commit'],
    ),
  ];
  return {
    id: 2,
    title: 'A turn beyond the model: POST → first event, POST → done, by hop',
    figures,
    markdown: [
      `${count} turns (after ${warmup} warm-up turns), one at a time, one operator, built-in planner, ${threadCount} threads joined by one Socket.IO client; each turn one search_findings call and ${fmt(summarize(deltas).p50)} text deltas (p50; TEXT_DELTA_COALESCE_MS ${ctx.coalesceMs}). Breakdown by hop (ms, from the API and worker trace marks and the client's receipt times, one monotonic clock):`,
      table(['hop', 'p50', 'p95', 'p99', 'mean'], hopRows),
    ],
    raw: {
      count,
      warmup,
      threadCount,
      firstEventMs: firstEvent,
      toDoneMs: toDone,
      httpResponseMs: httpResponse,
      hops,
      publishRtt,
      inProcess,
    },
  };
}

async function runInProcess(
  ctx: BenchContext,
  warmup: number,
  count: number,
  threadCount: number,
): Promise<{ runner: Summary; withLedger: Summary }> {
  const { stack } = ctx;
  const tools = new CorpusTools(stack.ds, defaultCorpusQueries, defaultReadOnly);
  const planner = new PlannerRunner(tools);
  const run = async (i: number, turnId: string, chatId: string, history: HistoryMessage[] = []) => {
    const events: RunnerEvent[] = [];
    return planner.run({
      chatId,
      turnId,
      ownerId: 'bench',
      history,
      userMessage: ONE_TOOL_QUESTIONS[i % ONE_TOOL_QUESTIONS.length],
      signal: new AbortController().signal,
      emit: async (e) => void events.push(e),
    });
  };
  const runnerMs: number[] = [];
  for (let i = 0; i < warmup + count; i++) {
    const t0 = nowMs();
    await run(i, randomUUID(), randomUUID());
    if (i >= warmup) runnerMs.push(nowMs() - t0);
  }
  const repo = new ChatRepository(stack.ds);
  const ledger = new TurnLedger(stack.ds);
  const owner = await operatorId(stack, stack.adminUser);
  const chats: string[] = [];
  for (let i = 0; i < threadCount; i++) chats.push((await repo.createChat(owner, `in-process ${i}`)).id);
  const ledgerMs: number[] = [];
  for (let i = 0; i < warmup + count; i++) {
    const t0 = nowMs();
    const chatId = chats[i % chats.length];
    const turnId = randomUUID();
    const stored = await storeTestTurn(stack.ds, owner, chatId, {
      turnId,
      content: ONE_TOOL_QUESTIONS[i % ONE_TOOL_QUESTIONS.length],
      clientMessageId: randomUUID(),
      autoTitle: 'x',
    });
    // What the worker does: load the turn, claim it and read the history in one statement.
    const claim = {
      attempt: 1,
      workerId: 'in-process',
      ownerId: owner,
      chatId,
      userMessageId: stored.userMessageId,
    };
    const history: HistoryMessage[] = (await ledger.startRun(turnId, claim))?.history ?? [];
    const outcome = await run(i, turnId, chatId, history);
    await ledger.finish(turnId, {
      status: 'complete',
      content: outcome.content,
      metadata: outcome.metadata,
      model: 'builtin',
    });
    if (i >= warmup) ledgerMs.push(nowMs() - t0);
  }
  return { runner: summarize(runnerMs), withLedger: summarize(ledgerMs) };
}
