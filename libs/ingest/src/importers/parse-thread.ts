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

/** A parsed file whose findings are still being handed over by the parse thread, in batches. */
export interface StreamedFile extends Omit<ParsedFile, 'findings'> {
  findingCount: number;
  /** Read once; it throws if the thread fails before the last batch. */
  findings: AsyncIterable<ParsedFinding[]>;
}

/** @internal What the parse thread posts: the file but its findings, then the findings in batches (or the refusal). */
export type ParseThreadMessage =
  | { kind: 'parsed'; parsed: Omit<StreamedFile, 'findings'> }
  | { kind: 'findings'; findings: ParsedFinding[] }
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
 * ingest worker's event loop. `bytes` are handed over. Resolves once the file is parsed, while its
 * findings are still arriving, so they can be stored meanwhile. Aborting `signal` before then
 * rejects with `ParseCancelled`; a failed thread (out of memory) throws a plain Error.
 */
export function parseInThread(
  name: string,
  bytes: Uint8Array,
  options: ParseOptions = {},
  signal?: AbortSignal,
): Promise<StreamedFile | ImportOutcome> {
  // Handed over, not copied, when the bytes own their buffer (as `fs.readFile` gives them).
  const own =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
  const input: ParseThreadInput = { name, bytes: own, options: { maxBytes: options.maxBytes } };
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new ParseCancelled());
    const worker = takeThread();
    const batches: ParsedFinding[][] = [];
    let left = 0;
    let failure: Error | null = null;
    let stopped = false;
    let wake = () => {};
    const stop = (keep: boolean) => {
      if (stopped) return;
      stopped = true;
      signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (keep) {
        worker.unref();
        idle.push(worker);
      } else void worker.terminate();
      wake();
    };
    // Before the file is parsed this rejects the promise; after, it ends the findings' iteration.
    const fail = (e: Error) => {
      if (stopped) return;
      failure = e;
      stop(false);
      reject(e);
    };
    async function* findings(): AsyncGenerator<ParsedFinding[]> {
      for (;;) {
        const batch = batches.shift();
        if (batch) yield batch;
        else if (failure) throw failure;
        else if (stopped) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    }
    const onAbort = () => fail(new ParseCancelled());
    const onMessage = (m: ParseThreadMessage) => {
      if (m.kind === 'parsed') {
        signal?.removeEventListener('abort', onAbort);
        left = m.parsed.findingCount;
        resolve({ ...m.parsed, findings: findings() });
        if (!left) stop(true);
      } else if (m.kind === 'findings') {
        batches.push(m.findings);
        left -= m.findings.length;
        // The next batch once this turn of the event loop is over (see the thread's BATCH).
        if (left) setImmediate(() => stopped || worker.postMessage('next'));
        else stop(true);
        wake();
      } else if (m.kind === 'outcome') {
        stop(true);
        resolve(m.outcome);
      } else fail(new Error(`the import parser failed: ${m.message}`));
    };
    const onError = (e: Error) => fail(e);
    const onExit = (code: number) => fail(new Error(`the import parser stopped (exit code ${code})`));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage(input, [own.buffer as ArrayBuffer]);
  });
}
