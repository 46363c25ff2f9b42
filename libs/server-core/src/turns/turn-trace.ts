import fs from 'node:fs';

/** One timing mark: which turn, which point of its path, when (µs of the machine's monotonic clock). */
export interface TurnTraceMark {
  turn: string;
  mark: string;
  /** Microseconds of `process.hrtime` (CLOCK_MONOTONIC: the same clock in every process of a machine). */
  t: number;
  pid: number;
}

/** Milliseconds between two writes of buffered marks. */
const FLUSH_INTERVAL_MS = 100;

/**
 * Timing marks along a turn's path (API enqueue, worker pickup and stages, every event publish,
 * the API's relay to sockets) for the benchmark harness (`npm run bench`, see docs/benchmarks.md).
 *
 * Off unless the environment variable `TURN_TRACE_FILE` names a file; then every `mark()` is
 * appended to it as a JSON line `{"turn","mark","t","pid"}` (buffered, written every 100 ms and at
 * exit). `t` is `process.hrtime` in microseconds, CLOCK_MONOTONIC on Linux, so marks written by the
 * API, the workers and the harness on one machine compare directly. When off, `mark()` is a single
 * branch. Nothing in the application reads the marks.
 */
export class TurnTrace {
  private buffer: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly file: string) {
    if (!file) return;
    this.timer = setInterval(() => this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
    process.once('exit', () => this.flushSync());
  }

  /** Whether marks are being recorded. */
  get enabled(): boolean {
    return this.file !== '';
  }

  /** Records that turn `turnId` reached point `mark` now (no-op when tracing is off). */
  mark(turnId: string, mark: string): void {
    if (!this.file) return;
    const t = Number(process.hrtime.bigint() / 1000n);
    this.buffer.push(`{"turn":"${turnId}","mark":"${mark}","t":${t},"pid":${process.pid}}\n`);
  }

  /** Writes the buffered marks now (asynchronously; errors are reported once on stderr). */
  flush(): void {
    if (!this.buffer.length) return;
    const lines = this.buffer.join('');
    this.buffer = [];
    fs.appendFile(this.file, lines, (e) => {
      if (e) console.error(`TURN_TRACE_FILE ${this.file}: ${e.message}`);
    });
  }

  private flushSync(): void {
    if (!this.buffer.length) return;
    try {
      fs.appendFileSync(this.file, this.buffer.join(''));
    } catch {
      // the process is exiting; a lost trace only affects a benchmark run
    }
    this.buffer = [];
  }
}

/** The process's trace, configured from `TURN_TRACE_FILE` (empty or unset: off). */
export const turnTrace = new TurnTrace(process.env['TURN_TRACE_FILE'] ?? '');

/** Parses a trace file's lines (skips blank or torn lines). */
export function parseTurnTrace(text: string): TurnTraceMark[] {
  const marks: TurnTraceMark[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      marks.push(JSON.parse(line) as TurnTraceMark);
    } catch {
      // a line cut by a process killed mid-write
    }
  }
  return marks;
}
