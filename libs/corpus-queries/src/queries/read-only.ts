import type { DataSource, EntityManager } from 'typeorm';

export interface ReadOnlyOptions {
  /** Aborts any statement running longer than this (ms); default 15000. */
  statementTimeoutMs?: number;
}

/**
 * Runs `fn` with an EntityManager bound to one connection inside a transaction declared
 * `REPEATABLE READ, READ ONLY` (any write it attempts fails with SQLSTATE 25006) with a statement
 * timeout. Every statement of `fn` sees one snapshot, so an answer built from several statements
 * (a page cut one severity at a time and its total) is consistent even while a report is imported
 * or archived. The transaction is committed when `fn` resolves and rolled back when it throws; the
 * error is rethrown. This is how the agent's tools and the findings API call the query functions.
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
