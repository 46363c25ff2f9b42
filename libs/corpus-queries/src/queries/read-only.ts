import type { DataSource, EntityManager } from 'typeorm';

export interface ReadOnlyOptions {
  /** Aborts any statement running longer than this (ms); default 15000. */
  statementTimeoutMs?: number;
}

/**
 * Runs `fn` with an EntityManager bound to one connection inside a transaction declared
 * `READ ONLY` (so any write it attempts fails with SQLSTATE 25006) with a statement timeout. The
 * transaction is committed when `fn` resolves and rolled back when it throws; the error is rethrown.
 * This is how the agent's tools call the query functions.
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
    await runner.query('SET TRANSACTION READ ONLY');
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
