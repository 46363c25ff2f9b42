import { Type } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { ServerEnv, validateEnv } from '@corpus-chat/server-core';

/**
 * Settings of an agent-worker process (validated at start-up; a bad value stops it naming the
 * variable). The agent's own settings (steps, context, model timeouts) are `AgentEnv`.
 */
export class WorkerEnv extends ServerEnv {
  /**
   * Turns one process runs at once (a turn mostly waits on the model, so one process holds many:
   * docs/benchmarks.md measures 500 slow turns in one process).
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(2000)
  WORKER_CONCURRENCY = 8;

  /**
   * Uploaded report files one process parses at once (`imports` queue). Parsing is CPU-bound and
   * holds a file in memory, so this stays small; turns keep their own `WORKER_CONCURRENCY`.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(16)
  IMPORT_CONCURRENCY = 1;

  /**
   * Milliseconds over which text deltas are joined before publishing (0: every delta on its own).
   * The first delta of an answer (and the first after a tool call) goes out at once; the next ones
   * wait at most this long. 16–50 cuts Redis and socket messages several-fold for fast models
   * (docs/benchmarks.md, scenarios 3 and 5).
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1000)
  TEXT_DELTA_COALESCE_MS = 0;

  /** Milliseconds a turn may run before it ends with `turn.error {code: 'TIMEOUT'}` (default 5 minutes). */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  TURN_TIMEOUT_MS = 300_000;

  /**
   * Milliseconds of a job lock. The worker renews it every half of this while the turn runs, so a
   * long turn keeps it; a worker that dies stops renewing and its turn is handed to another worker
   * after about this long.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  LOCK_DURATION_MS = 30_000;

  /** Milliseconds between checks for turns whose worker died (their lock expired). */
  @Type(() => Number)
  @IsInt()
  @Min(500)
  STALLED_INTERVAL_MS = 30_000;

  /** Milliseconds a SIGTERM waits for running turns to finish; then they are handed back to the queue. */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  SHUTDOWN_TIMEOUT_MS = 30_000;

  /** Port of the worker's `GET /health` (-1: no HTTP server, 0: any free port). */
  @Type(() => Number)
  @IsInt()
  @Min(-1)
  @Max(65535)
  WORKER_HEALTH_PORT = -1;

  /** Name of this worker in events and logs (default `<hostname>:<pid>:<random>`). */
  @IsString()
  @Matches(/^[a-zA-Z0-9:._-]{0,100}$/, {
    message: 'WORKER_ID must be up to 100 letters, digits, ":", ".", "_" or "-"',
  })
  WORKER_ID = '';
}

/** Reads and validates `WorkerEnv` from `raw` (default `process.env`); throws `ConfigError` naming each bad variable. */
export const loadWorkerEnv = (raw: Record<string, unknown> = process.env): WorkerEnv =>
  validateEnv(WorkerEnv, raw);
