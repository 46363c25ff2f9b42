import { compareReports, corpusOverview, countFindingsBy, findingDetail, listReports, searchFindings } from '../queries';
import type { CorpusQueryFns, ReadOnlyRunner } from './corpus-queries.port';

/** The real query functions of `libs/corpus-queries`, one per tool. */
export const defaultCorpusQueries: CorpusQueryFns = {
  corpusOverview: (m) => corpusOverview(m),
  searchFindings: (m, a) => searchFindings(m, a),
  countFindingsBy: (m, a) => countFindingsBy(m, a),
  listReports: (m, a) => listReports(m, a),
  findingDetail: (m, id) => findingDetail(m, id),
  compareReports: (m, a) => compareReports(m, a),
};

/** Milliseconds a tool's statement may run before Postgres aborts it (as `runReadOnly`'s default). */
export const TOOL_STATEMENT_TIMEOUT_MS = 15_000;

/**
 * Opens the tool's transaction in one round trip: `BEGIN` (REPEATABLE READ, so a tool's several
 * statements — a page cut one severity at a time and its total — share one snapshot) `READ ONLY`,
 * and the statement timeout.
 * The `SELECT` takes the transaction's first snapshot, so a later `SET TRANSACTION READ WRITE`
 * fails ("must be set before any query") instead of lifting the read-only mode.
 */
const BEGIN_READ_ONLY = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT set_config('statement_timeout', '${TOOL_STATEMENT_TIMEOUT_MS}', true)`;

/** A first statement that may share the `BEGIN` round trip: one plain read (no `;`, no parameters). */
const FOLDABLE_READ = /^\s*(SELECT|WITH)\b[^;]*$/i;

type QueryFn = (sql: string, parameters?: unknown[], structured?: boolean) => Promise<unknown>;
type PgClient = { query(sql: string): Promise<{ rows: unknown[] } | { rows: unknown[] }[]> };

/**
 * How the tools run their query: `fn` gets an EntityManager bound to one pooled connection inside a
 * `READ ONLY` transaction with a 15 s statement timeout (any write fails with SQLSTATE 25006), the
 * same guarantees as `runReadOnly` of `libs/corpus-queries` in fewer round trips: the begin and the
 * settings go out in one simple-protocol query, together with `fn`'s first statement when that is a
 * single parameterless read (the corpus-version check of a cached query, so a cached tool call
 * costs two round trips instead of five). Commits when `fn` resolves; rolls back and rethrows when
 * it rejects; a connection whose rollback failed is discarded, not returned to the pool.
 */
export const defaultReadOnly: ReadOnlyRunner = async (ds, fn) => {
  const runner = ds.createQueryRunner();
  const query = runner.query.bind(runner) as QueryFn;
  let opened = false;
  let broken: unknown;
  // Every statement of `fn` (manager.query, query builders, repositories) goes through runner.query.
  (runner as unknown as { query: QueryFn }).query = async (sql, parameters, structured) => {
    if (opened) return query(sql, parameters, structured);
    opened = true;
    if (parameters?.length || structured || !FOLDABLE_READ.test(sql)) {
      await query(BEGIN_READ_ONLY);
      return query(sql, parameters, structured);
    }
    const client = (await runner.connect()) as PgClient;
    const results = await client.query(`${BEGIN_READ_ONLY}; ${sql}`);
    return Array.isArray(results) ? results[results.length - 1].rows : results.rows;
  };
  try {
    const result = await fn(runner.manager);
    if (opened) await query('COMMIT');
    return result;
  } catch (e) {
    if (opened) await query('ROLLBACK').catch((rollbackError: unknown) => (broken = rollbackError));
    throw e;
  } finally {
    await (runner as unknown as { releasePostgresConnection(err?: unknown): Promise<void> }).releasePostgresConnection(broken);
  }
};
