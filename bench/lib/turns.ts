import fs from 'node:fs';
import { Queue } from 'bullmq';
import { CHAT_TURNS_QUEUE, type RunTurnJobData } from '@corpus-chat/contracts';
import { ChatRepository } from '@corpus-chat/persistence';
import { storeTestTurn } from '@corpus-chat/persistence/testing';
import { redisOptionsFromUrl } from '@corpus-chat/server-core';
import type { BenchStack } from './stack';
import { sleep } from './stats';

/** One-tool questions of shared/questions the built-in planner answers with one `search_findings` call. */
export const ONE_TOOL_QUESTIONS = [
  'How many findings are there in total?',
  'How many critical findings are there?',
  'How many high severity findings are there?',
  'How many medium severity findings are there?',
  'How many findings relate to SQL injection?',
  'How many findings relate to cross-site scripting?',
  'How many findings mention XSS?',
  'How many findings relate to path traversal?',
  'How many findings relate to command injection?',
  'How many findings relate to hard-coded credentials?',
  'How many findings mention jQuery?',
  'How many findings mention cookies?',
  'How many findings are about prototype pollution?',
  'How many findings mention glibc?',
  'How many high severity findings relate to cross-site scripting?',
  'How many critical findings relate to SQL injection?',
  'How many medium severity findings relate to path traversal?',
  'How many findings are in the report dd__flawfinder.sarif?',
  'How many findings does scb__juice-shop-v12.10.2.json contain?',
  'How many findings have CWE-79?',
] as const;

/** The id of an operator by username. */
export async function operatorId(stack: BenchStack, username: string): Promise<string> {
  const rows: { id: string }[] = await stack.ds.query(
    `SELECT id FROM operators WHERE lower(username) = lower($1)`,
    [username],
  );
  if (!rows[0]) throw new Error(`no operator ${username}`);
  return rows[0].id;
}

/**
 * Creates `count` threads of `ownerId` with one queued turn each (the same rows the API writes,
 * through `storeTestTurn`), `parallel` at a time.
 */
export async function prepareTurns(
  stack: BenchStack,
  ownerId: string,
  count: number,
  question: (i: number) => string,
  parallel = 8,
): Promise<RunTurnJobData[]> {
  const repo = new ChatRepository(stack.ds);
  const out: RunTurnJobData[] = new Array(count);
  let next = 0;
  const work = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const chat = await repo.createChat(ownerId, `bench ${i}`);
      const started = await storeTestTurn(stack.ds, ownerId, chat.id, {
        content: question(i),
        autoTitle: 'bench',
      });
      out[i] = {
        turnId: started.turnId,
        chatId: started.chatId,
        ownerId,
        userMessageId: started.userMessageId,
      };
    }
  };
  await Promise.all(Array.from({ length: parallel }, work));
  return out;
}

/** A BullMQ queue handle on the run's `chat-turns` queue (what the API's dispatcher adds to). */
export function turnQueue(stack: BenchStack): Queue<RunTurnJobData> {
  return new Queue<RunTurnJobData>(CHAT_TURNS_QUEUE, {
    connection: { ...redisOptionsFromUrl(stack.redisUrl), connectionName: 'bench-queue' },
    prefix: stack.keys.bullPrefix,
  });
}

/**
 * The dispatcher's job options (jobId = turn id); `lean` removes a job once completed (scenario 3
 * adds thousands).
 */
export const turnJobOpts = (turnId: string, lean = false) => ({
  jobId: turnId,
  attempts: 2,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: lean || { age: 3600, count: 100_000 },
  removeOnFail: { age: lean ? 3600 : 7 * 24 * 3600 },
});

/** How many of the run's turns (or of `turns`) are queued or running. */
export async function openTurns(stack: BenchStack, turns?: { turnId: string }[]): Promise<number> {
  const sql = `SELECT count(*)::int AS n FROM chat_turns WHERE status IN ('queued', 'running')`;
  const [{ n }] = turns
    ? await stack.ds.query(`${sql} AND id = ANY($1::uuid[])`, [turns.map((t) => t.turnId)])
    : await stack.ds.query(sql);
  return n;
}

/** Waits until none of the run's turns (or of `turns`) is open (bounded; throws naming how many are left). */
export async function waitTurnsEnded(
  stack: BenchStack,
  timeoutMs: number,
  turns?: { turnId: string }[],
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const n = await openTurns(stack, turns);
    if (n === 0) return;
    if (Date.now() > deadline) throw new Error(`${n} turns still queued or running after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Turn statuses of the run: `{complete: 1000, error: 2}`. */
export async function turnStatusCounts(stack: BenchStack): Promise<Record<string, number>> {
  const rows: { status: string; n: number }[] = await stack.ds.query(
    `SELECT status, count(*)::int AS n FROM chat_turns GROUP BY status`,
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

/** Marks of a trace file grouped by turn: turn → mark name → times (ms, in order). */
export type TraceIndex = Map<string, Map<string, number[]>>;

/**
 * Reads trace files (after the processes flushed them: they write every 100 ms). Each line
 * (`bench/probes/turn-trace.cjs`) is a mark at µs of the machine's monotonic clock; blank lines and
 * one cut by a process killed mid-write are skipped.
 */
export async function readTrace(files: string[]): Promise<TraceIndex> {
  await sleep(300);
  const all: { turn: string; mark: string; t: number }[] = [];
  for (const f of files.filter((x) => fs.existsSync(x)))
    for (const line of fs.readFileSync(f, 'utf8').split('\n')) {
      try {
        if (line) all.push(JSON.parse(line));
      } catch {
        // a torn line
      }
    }
  all.sort((a, b) => a.t - b.t);
  const index: TraceIndex = new Map();
  for (const m of all) {
    let marks = index.get(m.turn);
    if (!marks) index.set(m.turn, (marks = new Map()));
    marks.set(m.mark, [...(marks.get(m.mark) ?? []), m.t / 1000]);
  }
  return index;
}

/** The time (ms) turn `turnId` reached `mark` (`name`, or `name#n` for its n-th occurrence), or NaN. */
export function markAt(index: TraceIndex, turnId: string, mark: string): number {
  const [name, nth = '1'] = mark.split('#');
  return index.get(turnId)?.get(name)?.[Number(nth) - 1] ?? NaN;
}
