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
 * How the tools run their query: `fn` gets an EntityManager bound to one pooled connection inside a
 * `REPEATABLE READ` (a tool's several statements, such as a page cut one severity at a time and its
 * total, share one snapshot) `READ ONLY` transaction (any write fails with SQLSTATE 25006) with a
 * 15 s statement timeout. Commits when `fn` resolves; rolls back and rethrows when it rejects.
 *
 * The setup ends with a `SELECT`, which takes the transaction's snapshot: a later `SET TRANSACTION
 * READ WRITE` from `fn` then fails ("must be set before any query") instead of lifting the
 * read-only mode. The same statement reads the backend's pid, so an abort of `signal` (the turn
 * was stopped) cancels the running statement with `pg_cancel_backend` from another connection;
 * the cancel is awaited before the connection goes back to the pool, so it can never hit a
 * statement of the connection's next user.
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
