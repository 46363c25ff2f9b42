import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ImportOutcome } from '@corpus-chat/contracts';
import type { ParseOptions, ParsedFile } from './parse-report';
import type { ParsedFinding } from './parsed-report';

/** @internal What the parse thread is given. */
export interface ParseThreadInput {
  name: string;
  bytes: Uint8Array;
  options: { maxBytes?: number };
}

/** @internal What the parse thread posts: findings in batches, then the rest of the file (or the refusal). */
export type ParseThreadMessage =
  | { kind: 'findings'; findings: ParsedFinding[] }
  | { kind: 'parsed'; parsed: ParsedFile }
  | { kind: 'outcome'; outcome: ImportOutcome }
  | { kind: 'error'; message: string };

/**
 * The thread's script beside this file: `.js` in the build, `.ts` when the sources run directly
 * (Jest, `run-ts`), which the thread then compiles with the project's require hook.
 */
const ext = path.extname(__filename);
const SCRIPT = path.join(__dirname, `parse-thread.worker${ext}`);
const REGISTER = ext === '.ts' ? path.resolve(__dirname, '../../../../tools/build/register.cjs') : null;
const BOOT = `const { workerData } = require('node:worker_threads');
if (workerData.register) require(workerData.register);
require(workerData.script);`;

/** Thrown when `signal` aborted the parse (the thread was stopped). */
export class ParseCancelled extends Error {
  constructor() {
    super('the parse was cancelled');
    this.name = 'ParseCancelled';
  }
}

/**
 * Idle parse threads: starting one costs about a second, so a thread that ended cleanly is kept;
 * failed or stopped ones are dropped. Idle threads do not keep the process alive.
 */
const idle: Worker[] = [];

function takeThread(): Worker {
  const reused = idle.pop();
  reused?.ref();
  if (reused) return reused;
  const worker = new Worker(BOOT, { eval: true, workerData: { script: SCRIPT, register: REGISTER } });
  // An idle thread that dies leaves the pool; its error is reported to the parse that uses it, if any.
  worker.on('error', () => undefined);
  worker.once('exit', () => {
    const i = idle.indexOf(worker);
    if (i >= 0) idle.splice(i, 1);
  });
  return worker;
}

/**
 * `parseForImport` in a worker thread, so a 50 MB file does not hold up the chat turns on the
 * ingest worker's event loop. `bytes` are handed over. Aborting `signal` rejects with
 * `ParseCancelled`; a failed thread (out of memory) throws a plain Error.
 */
export function parseInThread(
  name: string,
  bytes: Uint8Array,
  options: ParseOptions = {},
  signal?: AbortSignal,
): Promise<ParsedFile | ImportOutcome> {
  // Handed over, not copied, when the bytes own their buffer (as `fs.readFile` gives them).
  const own =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
  const input: ParseThreadInput = { name, bytes: own, options: { maxBytes: options.maxBytes } };
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ParseCancelled());
    const worker = takeThread();
    const findings: ParsedFinding[] = [];
    let settled = false;
    const end = (settle: () => void, keep = false) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (keep) {
        worker.unref();
        idle.push(worker);
      } else void worker.terminate();
      settle();
    };
    const onAbort = () => end(() => reject(new ParseCancelled()));
    const onMessage = (m: ParseThreadMessage) => {
      if (m.kind === 'findings') {
        for (const f of m.findings) findings.push(f);
        // The next batch once this turn of the event loop is over (see the thread's BATCH).
        setImmediate(() => settled || worker.postMessage('next'));
      } else if (m.kind === 'parsed') end(() => resolve({ ...m.parsed, findings }), true);
      else if (m.kind === 'outcome') end(() => resolve(m.outcome), true);
      else end(() => reject(new Error(`the import parser failed: ${m.message}`)));
    };
    const onError = (e: Error) => end(() => reject(e));
    const onExit = (code: number) =>
      end(() => reject(new Error(`the import parser stopped (exit code ${code})`)));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage(input, [own.buffer as ArrayBuffer]);
  });
}
