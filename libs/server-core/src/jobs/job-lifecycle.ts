/**
 * The life of a BullMQ job, one set of rules for turns (`chat-turns`) and imports (`imports`):
 * how a job is added, how a worker holds it, and what the API's sweep does when a row is still
 * active but its job is not.
 */
import type { JobsOptions, JobState, WorkerOptions } from 'bullmq';

/** BullMQ's failure of a job whose worker stopped renewing its lock (died) over `maxStalledCount` times. */
export const STALLED_LIMIT_REASON = 'job stalled more than allowable limit';

/**
 * How a turn's or an import's job is added: its id is the row's id, so a second add (the sweep,
 * a retried POST) is a no-op; a failed attempt is retried after 1 s, then 2 s…
 */
export function jobAddOptions(id: string, attempts: number): JobsOptions {
  return {
    jobId: id,
    attempts,
    backoff: { type: 'exponential', delay: 1000 },
    removeOnComplete: { age: 3600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600 },
  };
}

/** The lock settings of a worker's queue, from the worker's validated settings (ms). */
export interface JobLockSettings {
  LOCK_DURATION_MS: number;
  STALLED_INTERVAL_MS: number;
}

/**
 * How a worker holds a job of `kind`. A turn survives one dead worker (it restarts on another as
 * the next attempt; a second death gives up). An import does not: parsing is deterministic, so a
 * file that killed one worker (out of memory) would kill the next; the import ends failed instead.
 */
export function jobWorkerOptions(
  kind: 'turn' | 'import',
  env: JobLockSettings,
): Pick<WorkerOptions, 'lockDuration' | 'stalledInterval' | 'maxStalledCount'> {
  return {
    lockDuration: env.LOCK_DURATION_MS,
    stalledInterval: env.STALLED_INTERVAL_MS,
    maxStalledCount: kind === 'turn' ? 1 : 0,
  };
}

/** A job that is waiting, delayed or running: BullMQ will still process or retry it. */
export function isLiveJob(state: JobState | 'unknown'): boolean {
  return state !== 'unknown' && state !== 'completed' && state !== 'failed';
}

/** What the sweep did about one active row: left it, added its job again, or ended it. */
export type Recovery = 'alive' | 'requeued' | 'ended';

/**
 * The sweep's one rule for an active row (a turn or an import) and its job's `state`: nothing
 * while the job lives or `workerAlive` (a Redis restart loses the job, not the worker, which still
 * stores its outcome); a `queued` row whose job never reached Redis (the API stopped between its
 * commit and its add) gets it again with `requeue`; else the job is gone or ended without ending
 * the row, and `end` ends it (resolving false when the row ended meanwhile).
 */
export async function recoverJob(
  state: JobState | 'unknown',
  row: { queued: boolean; workerAlive?: boolean },
  act: { requeue(): Promise<void>; end(): Promise<boolean> },
): Promise<Recovery> {
  if (isLiveJob(state) || row.workerAlive) return 'alive';
  if (state === 'unknown' && row.queued) {
    await act.requeue();
    return 'requeued';
  }
  return (await act.end()) ? 'ended' : 'alive';
}
