import { IdleConcurrency } from './idle-concurrency';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('IdleConcurrency', () => {
  it('allows one job while idle and the full concurrency from the moment a job starts until the last ends', async () => {
    const worker = { concurrency: 8 };
    const idle = new IdleConcurrency(worker, 8);
    expect(worker.concurrency).toBe(1);

    const first = deferred();
    const second = deferred();
    const a = idle.run(() => first.promise);
    // Raised synchronously, before the BullMQ loop asks Redis for the next job.
    expect(worker.concurrency).toBe(8);
    const b = idle.run(() => second.promise);
    first.resolve();
    await a;
    expect(worker.concurrency).toBe(8);
    second.resolve();
    await b;
    expect(worker.concurrency).toBe(1);
  });

  it('passes a failure through and still goes back to one job when idle', async () => {
    const worker = { concurrency: 4 };
    const idle = new IdleConcurrency(worker, 4);
    const failing = deferred();
    const run = idle.run(() => failing.promise);
    expect(worker.concurrency).toBe(4);
    failing.reject(new Error('model down'));
    await expect(run).rejects.toThrow('model down');
    expect(worker.concurrency).toBe(1);
  });
});
