import type { DataSource, EntityManager } from 'typeorm';
import type {
  CorpusOverview,
  CountFindingsByResult,
  FindingDetailResult,
  FindingFilter,
  GroupByKey,
  ReportSummary,
  ScanComparison,
  SearchFindingsResult,
} from '@corpus-chat/contracts';

/**
 * The query functions of `libs/corpus-queries` the tools wrap, one each. Injected so a test can
 * hand a tool a deliberately broken wrapper (the read-only test) while production binds the real ones.
 * Every function receives the EntityManager of a read-only transaction.
 */
export interface CorpusQueryFns {
  corpusOverview(manager: EntityManager): Promise<CorpusOverview>;
  searchFindings(
    manager: EntityManager,
    args: FindingFilter & { limit?: number; offset?: number },
  ): Promise<SearchFindingsResult>;
  countFindingsBy(
    manager: EntityManager,
    args: { groupBy: GroupByKey; filter?: FindingFilter },
  ): Promise<CountFindingsByResult>;
  listReports(manager: EntityManager, args: { includeArchived?: boolean }): Promise<ReportSummary[]>;
  findingDetail(manager: EntityManager, id: number): Promise<FindingDetailResult>;
  compareReports(
    manager: EntityManager,
    args: { baseline: string; report?: string; ordered?: boolean },
  ): Promise<ScanComparison>;
}

/**
 * Runs `fn` in a read-only transaction (`SET TRANSACTION READ ONLY`): any write inside fails. An
 * abort of `signal` cancels the statement running at the time.
 */
export type ReadOnlyRunner = <T>(
  dataSource: DataSource,
  fn: (manager: EntityManager) => Promise<T>,
  signal?: AbortSignal,
) => Promise<T>;

/**
 * Thrown by a `ReadOnlyRunner` when the database could not be reached at all, as opposed to a
 * query that failed: `CorpusTools.execute` lets it through instead of answering `ok: false`, so
 * the caller can retry or end the turn rather than let a model answer without the data.
 */
export class CorpusUnavailableError extends Error {
  constructor(override readonly cause: unknown) {
    super(`the corpus database did not answer (${(cause as Error)?.message ?? String(cause)})`);
    this.name = 'CorpusUnavailableError';
  }
}

/** Nest injection token of the `CorpusQueryFns` the tools use. */
export const CORPUS_QUERY_FNS = Symbol('CORPUS_QUERY_FNS');
