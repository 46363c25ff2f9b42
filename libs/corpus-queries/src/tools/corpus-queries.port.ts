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

/** The query functions the tools wrap, injected so a test can hand in a broken one. */
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
 * The database could not be reached: `CorpusTools.execute` rethrows it rather than answer `ok:
 * false`, so the turn retries or ends instead of a model answering without data.
 */
export class CorpusUnavailableError extends Error {
  constructor(override readonly cause: unknown) {
    super(`the corpus database did not answer (${(cause as Error)?.message ?? String(cause)})`);
    this.name = 'CorpusUnavailableError';
  }
}

/** Nest injection token of the `CorpusQueryFns` the tools use. */
export const CORPUS_QUERY_FNS = Symbol('CORPUS_QUERY_FNS');
