import type { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `fn` inside a transaction started with `SET TRANSACTION READ ONLY`, so any INSERT, UPDATE,
 * DELETE or DDL inside it fails with Postgres error 25006 ("cannot execute … in a read-only
 * transaction") and the transaction is rolled back. The transaction is committed (a no-op) when
 * `fn` resolves. Used only until `libs/corpus-queries` exports its own `runReadOnly`.
 */
export async function runReadOnlyFallback<T>(dataSource: DataSource, fn: (manager: EntityManager) => Promise<T>): Promise<T> {
  return dataSource.transaction(async (manager) => {
    await manager.query('SET TRANSACTION READ ONLY');
    return fn(manager);
  });
}
