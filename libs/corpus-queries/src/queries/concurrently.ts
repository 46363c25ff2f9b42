import type { EntityManager } from 'typeorm';

/**
 * Runs the statements of one answer: at once when `manager` draws pooled connections (each task
 * gets its own), one after another when it is bound to one connection (a transaction, such as
 * `runReadOnly`'s: a pg client runs one query at a time, and queueing a second on a busy client is
 * deprecated in pg 8 and removed in pg 9). Resolves to the tasks' results in order; rejects with
 * the first failure (on the pool, the other tasks' statements still run to their end; in turn, the
 * later tasks are not started).
 */
export async function concurrently<T extends unknown[]>(
  manager: EntityManager,
  tasks: [...{ [K in keyof T]: () => Promise<T[K]> }],
): Promise<T> {
  if (manager.queryRunner === undefined) return (await Promise.all(tasks.map((task) => task()))) as T;
  const results: unknown[] = [];
  for (const task of tasks) results.push(await task());
  return results as T;
}
