/**
 * Entry point of the import parse thread (see `parse-thread.ts`): parses each file it is sent, one
 * at a time, and posts the findings in batches, then the rest of the parsed file, or the refusal.
 */
// A thread starts with fresh globals: the decorated classes the contracts library declares need this, as in main.ts.
import 'reflect-metadata';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { parseForImport } from './parse-report';
import type { ParseThreadInput, ParseThreadMessage } from './parse-thread';

/**
 * Findings per message. The main thread reads every message already waiting in one go, so each
 * batch waits for its go-ahead: copying them all in at once would stall its event loop.
 */
const BATCH = 100;

/** Resolves the wait for the main thread's go-ahead (`'next'`) of the batch being sent. */
let go: (() => void) | null = null;
const next = (): Promise<void> => new Promise((resolve) => (go = resolve));

// On Linux a nice value is per thread: this one yields the CPU to the event loop (chat turns) and to
// Postgres whenever they need it. Elsewhere it would lower the whole process, so it is left as is.
if (process.platform === 'linux') os.setPriority(os.constants.priority.PRIORITY_LOW);

async function run({ name, bytes, options }: ParseThreadInput): Promise<void> {
  const post = (m: ParseThreadMessage) => parentPort!.postMessage(m);
  const parsed = await parseForImport(name, bytes, options);
  if ('ok' in parsed) return post({ kind: 'outcome', outcome: parsed });
  const { findings, ...rest } = parsed;
  for (let s = 0; s < findings.length; s += BATCH) {
    post({ kind: 'findings', findings: findings.slice(s, s + BATCH) });
    await next();
  }
  post({ kind: 'parsed', parsed: { ...rest, findings: [] } });
}

parentPort!.on('message', (m: ParseThreadInput | 'next') => {
  if (m === 'next') return go?.();
  run(m).catch((e: unknown) =>
    parentPort!.postMessage({
      kind: 'error',
      message: (e as Error)?.message ?? String(e),
    } satisfies ParseThreadMessage),
  );
});
