/**
 * A text search's first page cut one severity at a time (see {@link pageBySeverity}): the
 * per-severity match estimates, the severity shares kept per data source, and the choice of step
 * for each severity. Used by `findingRows` in `search-findings.ts`.
 */
import { LRUCache } from 'lru-cache';
import type { EntityManager } from 'typeorm';
import { SEVERITIES, type FindingRow, type Severity } from '@corpus-chat/contracts';
import { severityCwe, severityLiteral, severitySearchVector, type FindingWhere } from './finding-filter';
import { concurrently } from './concurrently';
import {
  arrayOverlapSelectivity,
  parseTsQuery,
  readSeverityIndexStats,
  tsQuerySelectivity,
  UnsupportedTsQueryError,
  type SeverityIndexStats,
  type TsQueryNode,
} from './search-selectivity';

import {
  PAGE_COLUMNS,
  ROW_SELECT,
  WALK_COLUMNS,
  WALK_COST_RATIO,
  type RowRecord,
  toRow,
} from './finding-rows';

/**
 * For one severity: the live findings of that severity and, of those, the ones matching a filter,
 * both as the planner estimates them (the matches computed in the process from the statistics of
 * `ix_findings_search_<severity>` or asked of `EXPLAIN`, so a term concentrated in other
 * severities is known to be rare in this one), and the exact id span of its live findings.
 * Estimates only steer how a page is read, never which rows it holds.
 */
export interface SeverityEstimate {
  severity: Severity;
  /** Live (non-archived) findings of this severity (estimate). */
  findings: number;
  /** Of those, the ones matching the filter (estimate). */
  matches: number;
  /** Smallest and largest id of a live finding of this severity (0 and 0 when there is none). */
  minId: number;
  maxId: number;
}

interface ExplainNode {
  'Node Type': string;
  'Plan Rows': number;
  'Parallel Aware'?: boolean;
  Plans?: ExplainNode[];
}

/**
 * Per-severity estimates for a text filter, the matches being what the planner would estimate for
 * each severity's branch (`NOT f.archived AND <the filter over that severity's search vector and
 * CWE expressions>`), so each is estimated from that severity's statistics:
 *
 * - a filter of live findings and text only (the usual question) is estimated here, in the
 *   process, from cached planner statistics ({@link liveSeverityShares}) and the text's tsquery
 *   (one short statement), with PostgreSQL's own formulas ({@link tsQuerySelectivity},
 *   {@link arrayOverlapSelectivity});
 * - any other filter by one `EXPLAIN` (no execution) of five branches.
 *
 * The findings per severity and their id span come from {@link liveSeverityShares}.
 */
export async function estimateBySeverity(
  manager: EntityManager,
  where: FindingWhere,
): Promise<SeverityEstimate[]> {
  if (where.liveTextOnly && where.search) {
    const search = where.search;
    const [queries, shares] = await concurrently(manager, [
      () => textQueries(manager, search.phrases),
      () => liveSeverityShares(manager),
    ]);
    // No statistics rows at all (never analysed, or pg_stats hides them from this role): let the
    // planner, which reads pg_statistic itself, estimate.
    if (queries !== undefined && shares.stats.search.some((st) => st !== null)) {
      return SEVERITIES.map((severity, i) => {
        const text = tsQuerySelectivity(queries, shares.stats.search[i]);
        const cwe = search.cwe ? arrayOverlapSelectivity(search.cwe, shares.stats.cwe[i]) : 0;
        return { severity, matches: shares.liveRows * (text + cwe - text * cwe), ...shares.bySeverity[i] };
      });
    }
  }
  return explainBySeverity(manager, where);
}

/** Phrases whose tsquery text is kept per DataSource (see {@link textQueries}). */
export const TSQUERY_CACHE_SIZE = 2000;

const tsQueryTexts = new WeakMap<object, LRUCache<string, { q: string }>>();

/**
 * The tsquery of `websearch_to_tsquery('english', p)` for each phrase, ORed (null: only stop
 * words), or undefined when one uses a form {@link parseTsQuery} does not model.
 *
 * Each phrase's tsquery text is kept in an LRU of {@link TSQUERY_CACHE_SIZE} phrases per
 * DataSource, so a question asked again (or paged, or counted by another tool) costs no round
 * trip for its estimate; only phrases not seen yet are sent, in one statement. The text depends
 * only on the phrase and the server's `english` configuration; should an administrator change that
 * configuration, a kept text only steers the page's plan (estimates never decide which rows a page
 * holds), so it is never invalidated.
 */
async function textQueries(
  manager: EntityManager,
  phrases: string[],
): Promise<TsQueryNode | null | undefined> {
  let cache = tsQueryTexts.get(manager.connection);
  if (!cache) tsQueryTexts.set(manager.connection, (cache = new LRUCache({ max: TSQUERY_CACHE_SIZE })));
  const missing = [...new Set(phrases.filter((p) => !cache.has(p)))];
  if (missing.length > 0) {
    const rows: { p: string; q: string }[] = await manager.query(
      `SELECT t.p, websearch_to_tsquery('english', t.p)::text AS q FROM unnest($1::text[]) AS t(p)`,
      [missing],
    );
    for (const r of rows) cache.set(r.p, { q: r.q });
  }
  const texts = phrases.map((p) => cache.get(p)?.q);
  // Evicted between the read and here (more than TSQUERY_CACHE_SIZE phrases at once): estimate by EXPLAIN.
  if (texts.some((q) => q === undefined)) return undefined;
  try {
    return texts
      .map((q) => parseTsQuery(q as string))
      .reduce<TsQueryNode | null>(
        (acc, q) => (acc === null ? q : q === null ? acc : { op: 'or', left: acc, right: q }),
        null,
      );
  } catch (e) {
    if (e instanceof UnsupportedTsQueryError) return undefined;
    throw e;
  }
}

/** {@link estimateBySeverity} by the planner itself: one `EXPLAIN` of the five branches. */
export async function explainBySeverity(
  manager: EntityManager,
  where: FindingWhere,
): Promise<SeverityEstimate[]> {
  const branches = SEVERITIES.map(
    (s) =>
      `SELECT 1 FROM findings f WHERE ${where.sqlWith({ vector: severitySearchVector(s), cwe: severityCwe(s) })}`,
  );
  const [matches, shares] = await concurrently(manager, [
    () => explainBranches(manager, branches, where.params.values),
    () => liveSeverityShares(manager),
  ]);
  return SEVERITIES.map((severity, i) => ({ severity, matches: matches[i], ...shares.bySeverity[i] }));
}

/** How long the per-severity finding counts, id spans and statistics are reused (ms): they steer plans, never answers. */
export const SEVERITY_SHARE_TTL_MS = 30_000;

/** One severity's share of the live findings: the planner's count and the exact id span. */
export interface SeverityShare {
  findings: number;
  minId: number;
  maxId: number;
}

/** What {@link liveSeverityShares} reads. */
export interface SeverityShares {
  /** The planner's estimate of live findings (`NOT archived`), all severities. */
  liveRows: number;
  /** Per severity, in SEVERITIES order. */
  bySeverity: SeverityShare[];
  /** Statistics of the per-severity index expressions. */
  stats: SeverityIndexStats;
}

const severityShares = new WeakMap<
  object,
  { at: number; shares: SeverityShares; refreshingSince?: number }
>();

/** A background refresh of the severity shares not settled after this long (ms) no longer blocks another. */
const SHARE_REFRESH_GIVE_UP_MS = 60_000;

/** Drops the severity shares kept for a DataSource, so the next search reads them (tests and benchmarks). */
export function forgetSeverityShares(dataSource: object): void {
  severityShares.delete(dataSource);
}

/**
 * The planner's estimate of live findings, in all and per severity, the smallest and largest id
 * of each severity's live findings (ten probes of `ix_findings_live_severity`) and the statistics
 * of the per-severity indexes, per DataSource: the severity mix and the statistics move slowly,
 * and a stale value only makes a page choose a slower way or a window that needs a second
 * statement, never return other rows. The first call reads them on its caller's manager; once a
 * value is older than {@link SEVERITY_SHARE_TTL_MS}, callers get it at once while one refresh runs
 * in the background on the DataSource's own pool (never on a caller's transaction, so one caller's
 * aborted transaction never fails another's search, and no page waits for the refresh).
 */
export async function liveSeverityShares(manager: EntityManager): Promise<SeverityShares> {
  const key = manager.connection;
  const cached = severityShares.get(key);
  if (cached) {
    const now = Date.now();
    const refreshing =
      cached.refreshingSince !== undefined && now - cached.refreshingSince < SHARE_REFRESH_GIVE_UP_MS;
    if (now - cached.at >= SEVERITY_SHARE_TTL_MS && !refreshing) {
      cached.refreshingSince = now;
      readSeverityShares(manager.connection.manager).then(
        (shares) => severityShares.set(key, { at: Date.now(), shares }),
        () => (cached.refreshingSince = undefined), // kept as it was; the next call tries again
      );
    }
    return cached.shares;
  }
  const shares = await readSeverityShares(manager);
  severityShares.set(key, { at: Date.now(), shares });
  return shares;
}

/** Reads what {@link liveSeverityShares} keeps. */
async function readSeverityShares(manager: EntityManager): Promise<SeverityShares> {
  const live = (s: Severity) => `FROM findings WHERE severity = ${severityLiteral(s)} AND NOT archived`;
  const [rows, spans, stats] = await concurrently(manager, [
    () =>
      explainBranches(
        manager,
        [
          `SELECT 1 FROM findings f WHERE NOT f.archived`,
          ...SEVERITIES.map(
            (s) => `SELECT 1 FROM findings f WHERE f.severity = ${severityLiteral(s)} AND NOT f.archived`,
          ),
        ],
        [],
      ),
    () =>
      manager.query(
        `SELECT ${SEVERITIES.map((s, i) => `coalesce((SELECT min(id) ${live(s)}), 0) AS lo${i}, coalesce((SELECT max(id) ${live(s)}), 0) AS hi${i}`).join(', ')}`,
      ) as Promise<Record<string, number | string>[]>,
    () => readSeverityIndexStats(manager),
  ]);
  return {
    liveRows: rows[0],
    bySeverity: SEVERITIES.map((_, i) => ({
      findings: rows[i + 1],
      minId: Number(spans[0][`lo${i}`]),
      maxId: Number(spans[0][`hi${i}`]),
    })),
    stats,
  };
}

/**
 * The planner's row estimate of each branch of a UNION ALL (`SELECT 1 FROM …` statements), from one
 * `EXPLAIN (FORMAT JSON)`, in branch order. Each branch selects `pg_backend_pid()` (parallel
 * restricted; an EXPLAIN never calls it) so the Append cannot become a Parallel Append, which
 * reorders its children by cost and reports per-process rows; a branch may still be a Gather,
 * whose rows are the total.
 *
 * @throws Error when the plan is not an Append of `branches.length` children (a planner change).
 */
async function explainBranches(
  manager: EntityManager,
  branches: string[],
  params: unknown[],
): Promise<number[]> {
  const sql = branches
    .map((b) => b.replace(/^SELECT 1 FROM /, 'SELECT pg_backend_pid() FROM '))
    .join(' UNION ALL ');
  const [row]: { 'QUERY PLAN': { Plan: ExplainNode }[] }[] = await manager.query(
    `EXPLAIN (FORMAT JSON) ${sql}`,
    params,
  );
  const plan = row['QUERY PLAN'][0].Plan;
  const children = plan['Node Type'] === 'Append' ? (plan.Plans ?? []) : [];
  if (children.length !== branches.length || children.some((c) => c['Parallel Aware'])) {
    throw new Error(
      `expected an Append of ${branches.length} branches, got ${JSON.stringify(plan).slice(0, 300)}`,
    );
  }
  return children.map((c) => c['Plan Rows']);
}

/**
 * The first `limit` current findings matching `where` (which has a text condition and excludes
 * archived reports), most severe first, then by id, cut one severity at a time: critical first,
 * the next severity only while the page is not full. Within a severity the cheapest of three ways,
 * by the estimates (see {@link chooseSeverityStep}):
 *
 * - **collect**: the severity's matches through `ix_findings_search_<severity>`, sorted by id
 *   (cost ∝ its matches M, each a heap row read);
 * - **window**: the same, restricted to the first ids of the severity's span, sized to hold about
 *   three times the matches needed (a BitmapAnd of the text index with `ix_findings_live_severity`,
 *   so only the window's matches are read from the heap); if the window held fewer than needed, the
 *   rest of the severity is collected after it;
 * - **walk**: that severity's findings in id order (`ix_findings_live_severity`), testing each,
 *   until the page is full (cost ∝ WALK_COST_RATIO · needed · N / M). The walk is bounded to about
 *   twice the findings the estimate says it needs; if that was too optimistic, the rest of the
 *   severity is collected after the last match found.
 *
 * So a wrong estimate costs a statement, never rows (`choose` is replaceable to force a way in tests). A term rare among critical findings ("ldap")
 * collects them; a common one ("cookie": ~1,900 critical matches) reads a window of ~150; a very
 * common one ("application") walks a hundred findings.
 */
export async function pageBySeverity(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  estimates: SeverityEstimate[],
  choose: (estimate: SeverityEstimate, need: number) => SeverityStep = chooseSeverityStep,
): Promise<FindingRow[]> {
  const page: RowRecord[] = [];
  const run = (step: SeverityStep): Promise<RowRecord[]> => {
    const { sql, params } = severityStepSql(where, step);
    return manager.query(sql, params);
  };
  for (const estimate of estimates) {
    const need = limit - page.length;
    if (need <= 0) break;
    const step = choose(estimate, need);
    const rows = await run(step);
    page.push(...rows);
    if (rows.length >= need) continue;
    if (step.way === 'walk') {
      page.push(
        ...(await run({
          way: 'collect',
          severity: step.severity,
          need: need - rows.length,
          afterId: rows.at(-1)?.id ?? 0,
        })),
      );
    } else if (step.upToId !== undefined) {
      page.push(
        ...(await run({
          way: 'collect',
          severity: step.severity,
          need: need - rows.length,
          afterId: step.upToId,
        })),
      );
    }
  }
  return page.map(toRow);
}

/** How one severity's part of a page is read (see {@link pageBySeverity}). */
export type SeverityStep =
  | {
      way: 'walk';
      severity: Severity;
      need: number;
      /** Findings of the severity walked at most. */ bound: number;
    }
  | {
      way: 'collect';
      severity: Severity;
      need: number;
      /** Only findings with a greater id (0: all). */
      afterId: number;
      /** A window: only findings with an id up to this one (absent: no upper bound). */
      upToId?: number;
    };

/**
 * Relative costs of the ways to read a severity, per unit: a match read from the heap = 1 (≈ 3 µs
 * here); a posting read from a GIN index, an entry of a btree range, and a finding walked (its
 * current version looked up and its text tested). Measured on the 1M-finding synthetic corpus
 * (bench/queries.bench.ts): 1,907 "cookie" critical matches collected in 5.7 ms, their GIN bitmap
 * in 0.3 ms, a 6,791-entry range of `ix_findings_live_severity` in 0.6 ms.
 */
const STEP_COST = { heapRow: 1, ginPosting: 0.06, btreeEntry: 0.03, walkedFinding: WALK_COST_RATIO } as const;

/** A window is sized to hold about this many times the matches still needed. */
export const WINDOW_MARGIN = 3;

/**
 * The cheapest way to find `need` matches of one severity, by its estimates (M matches among N
 * findings whose ids span `minId…maxId`, assumed spread evenly over it):
 * walk ≈ walkedFinding · need · N / M (bounded to ~2× that);
 * collect ≈ M · (ginPosting + heapRow);
 * window ≈ M · ginPosting + WINDOW_MARGIN · need · heapRow + (the window's share of N) · btreeEntry,
 * only when the window is under 70 % of the span (a larger one is a collect with extra work).
 */
export function chooseSeverityStep(
  { severity, findings, matches, minId, maxId }: SeverityEstimate,
  need: number,
): SeverityStep {
  const m = Math.max(matches, 0.5);
  const walkRows = Math.ceil(Math.min(findings, (need * findings) / m));
  const fraction = (WINDOW_MARGIN * need) / m;
  const costs = {
    walk: STEP_COST.walkedFinding * walkRows,
    collect: m * (STEP_COST.ginPosting + STEP_COST.heapRow),
    window:
      fraction < 0.7 && maxId > minId
        ? m * STEP_COST.ginPosting +
          WINDOW_MARGIN * need * STEP_COST.heapRow +
          fraction * findings * STEP_COST.btreeEntry
        : Infinity,
  };
  if (costs.walk < costs.collect && costs.walk <= costs.window) {
    return { way: 'walk', severity, need, bound: Math.ceil(Math.min(findings, 2 * walkRows + 100)) };
  }
  if (costs.window < costs.collect) {
    return {
      way: 'collect',
      severity,
      need,
      afterId: 0,
      upToId: Math.ceil(minId + fraction * (maxId - minId)),
    };
  }
  return { way: 'collect', severity, need, afterId: 0 };
}

/**
 * The statement of one step, returning page rows in id order:
 *
 * - walk: at most `bound` live findings of the severity in `(severity, id)` order, the first `need`
 *   matching `where`;
 * - collect: all findings of the severity (id > `afterId`, and ≤ `upToId` for a window) matching
 *   `where` (a MATERIALIZED CTE, so the planner reads them through the severity's text and CWE
 *   indexes — and, for a window, ANDs them with the id range of `ix_findings_live_severity` —
 *   instead of walking for the first few), the first `need` by id: `where` with the search vector
 *   and the class CWE test replaced by their per-severity expressions, which are NULL (no match)
 *   for other severities.
 */
export function severityStepSql(where: FindingWhere, step: SeverityStep): { sql: string; params: unknown[] } {
  const p = where.params.clone();
  let page: string;
  if (step.way === 'walk') {
    page = `page AS (
           SELECT f.* FROM (SELECT ${WALK_COLUMNS} FROM findings f
                            WHERE f.severity = ${severityLiteral(step.severity)} AND NOT f.archived
                            ORDER BY f.severity, f.id LIMIT ${p.add(step.bound)}) f
           JOIN finding_versions wv ON wv.id = f.current_version_id
           WHERE ${where.sqlWith({ vector: 'wv.search_vector', cwe: 'f.cwe' })} ORDER BY f.id LIMIT ${p.add(step.need)})`;
  } else {
    const range = [
      step.afterId > 0 ? `f.id > ${p.add(step.afterId)}` : '',
      step.upToId !== undefined
        ? `f.severity = ${severityLiteral(step.severity)} AND f.id <= ${p.add(step.upToId)}`
        : '',
    ].filter(Boolean);
    page = `m AS MATERIALIZED (
           SELECT ${PAGE_COLUMNS} FROM findings f
           WHERE ${where.sqlWith({ vector: severitySearchVector(step.severity), cwe: severityCwe(step.severity) })}
             ${range.map((c) => `AND ${c}`).join(' ')}),
         page AS (SELECT * FROM m f ORDER BY f.id LIMIT ${p.add(step.need)})`;
  }
  return { sql: `WITH ${page} ${ROW_SELECT} ORDER BY p.id`, params: p.values };
}
