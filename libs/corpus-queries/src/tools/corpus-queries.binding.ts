import {
  compareReports,
  corpusOverview,
  countFindingsBy,
  findingDetail,
  listReports,
  searchFindings,
} from '../queries';
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
 * Runs a tool's query in a `REPEATABLE READ READ ONLY` transaction with a 15 s statement timeout.
 * The setup's `SELECT` takes the snapshot, so a later `SET TRANSACTION READ WRITE` fails, and reads
 * the backend pid: aborting `signal` cancels the statement with `pg_cancel_backend`, awaited before
 * the connection returns to the pool.
 */
export const defaultReadOnly: ReadOnlyRunner = async (ds, fn, signal) => {
  signal?.throwIfAborted();
  const runner = ds.createQueryRunner();
  let cancelling: Promise<unknown> | undefined;
  let pid: number | undefined;
  let open = false;
  // The statement's own error ("canceling statement due to user request") reports the abort.
  const cancel = () => (cancelling = ds.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined));
  try {
    // One statement, not `startTransaction` plus two SETs: the setup is two round trips per tool call.
    await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    open = true;
    const [session]: { pid: number }[] = await runner.query(
      `SELECT pg_backend_pid() AS pid, set_config('statement_timeout', $1, true) AS timeout`,
      [String(TOOL_STATEMENT_TIMEOUT_MS)],
    );
    pid = session!.pid;
    signal?.addEventListener('abort', cancel, { once: true });
    signal?.throwIfAborted();
    const result = await fn(runner.manager);
    open = false;
    await runner.query('COMMIT');
    return result;
  } catch (e) {
    // `e` is what the caller must see; a rollback can only fail on a dead connection, which pg's
    // pool discards on release.
    if (open) await runner.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    signal?.removeEventListener('abort', cancel);
    await cancelling;
    await runner.release();
  }
};
