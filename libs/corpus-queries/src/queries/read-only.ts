import type { DataSource, EntityManager } from 'typeorm';

export interface ReadOnlyOptions {
  /** Aborts any statement running longer than this (ms); default 15000. */
  statementTimeoutMs?: number;
}

/**
 * Runs `fn` in a `REPEATABLE READ, READ ONLY` transaction with a statement timeout, so an answer
 * built from several statements sees one snapshot while imports commit. Rethrows `fn`'s error.
 */
export async function runReadOnly<T>(
  dataSource: DataSource,
  fn: (manager: EntityManager) => Promise<T>,
  options: ReadOnlyOptions = {},
): Promise<T> {
  const timeout = Math.max(1, Math.floor(options.statementTimeoutMs ?? 15000));
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    await runner.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
    await runner.query(`SELECT set_config('statement_timeout', $1, true)`, [String(timeout)]);
    const result = await fn(runner.manager);
    await runner.commitTransaction();
    return result;
  } catch (e) {
    if (runner.isTransactionActive) await runner.rollbackTransaction();
    throw e;
  } finally {
    await runner.release();
  }
}
