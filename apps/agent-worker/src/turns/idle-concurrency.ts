import type { Worker } from 'bullmq';

/**
 * Protects `npm run bench` scenario 1 (enqueue → worker pickup ÷ bare BullMQ add → process, goal
 * p50 ≤ 2×). A BullMQ worker allowed more than one job, woken by a job while idle, asks Redis for a
 * second job before it starts the first: one more round trip on every idle pickup. So an idle
 * worker is allowed one job, and the job it starts restores `WORKER_CONCURRENCY` synchronously,
 * before BullMQ's loop asks for the next; the last job to end sets one again.
 */
export class IdleConcurrency {
  private running = 0;

  constructor(
    private readonly worker: Pick<Worker, 'concurrency'>,
    private readonly concurrency: number,
  ) {
    worker.concurrency = 1;
  }

  /** Runs one job's processing; must be called synchronously from the processor. */
  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running++ === 0) this.worker.concurrency = this.concurrency;
    try {
      return await job();
    } finally {
      if (--this.running === 0) this.worker.concurrency = 1;
    }
  }
}
