import { LRUCache } from 'lru-cache';
import type { EntityManager } from 'typeorm';
import {
  SEARCH_ROWS_CAP,
  SEVERITIES,
  type FindingFilter,
  type FindingRow,
  type SearchFindingsResult,
  type Severity,
  type VerdictStatus,
} from '@corpus-chat/contracts';
import {
  buildFindingWhere,
  severityCwe,
  severityLiteral,
  severitySearchVector,
  type FindingWhere,
} from './finding-filter';
import { cachedQuery, type QueryOptions } from './query-cache';
import { concurrently } from './concurrently';
import { intInRange, normaliseFilter } from './query-validation';
import {
  arrayOverlapSelectivity,
  parseTsQuery,
  readSeverityIndexStats,
  tsQuerySelectivity,
  UnsupportedTsQueryError,
  type SeverityIndexStats,
  type TsQueryNode,
} from './search-selectivity';
import { answerableFromSummary, severitySummary } from './severity-summary';

/** Arguments of {@link searchFindings}: a finding filter plus a page. */
export interface SearchFindingsInput extends FindingFilter {
  /** Rows to return, 0–50 (default 10); `total` is exact whatever the limit. */
  limit?: number;
  /** Rows to skip (default 0). */
  offset?: number;
}

/** Rows per page when the caller gives no limit. */
export const DEFAULT_SEARCH_LIMIT = 10;

interface RowRecord {
  id: number;
  title: string;
  severity: Severity;
  reportId: number | null;
  reportFilename: string | null;
  cwe: number[];
  cvssBaseScore: number | null;
  latestVerdict: VerdictStatus | null;
  createdAt: Date;
}

/**
 * Walking the `(severity, id)` order costs about this many times more per finding visited than
 * collecting a match through the indexes and sorting it (the walk looks up each finding's current
 * version to test the text). Measured on the synthetic corpus (bench/queries.bench.ts).
 */
export const WALK_COST_RATIO = 5;

/** Findings in the table, as last counted by ANALYZE/VACUUM (an estimate; -1 before the first). */
async function estimatedTableRows(manager: EntityManager): Promise<number> {
  const [row]: { n: number }[] = await manager.query(
    `SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'findings'::regclass`,
  );
  return row?.n ?? -1;
}

/** The planner's estimate of how many findings `where` matches (one EXPLAIN, no execution). */
export async function estimateMatching(manager: EntityManager, where: FindingWhere): Promise<number> {
  const [row]: { 'QUERY PLAN': { Plan: { 'Plan Rows': number } }[] }[] = await manager.query(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM findings f WHERE ${where.sql}`,
    where.params.values,
  );
  return row['QUERY PLAN'][0].Plan['Plan Rows'];
}

/**
 * Whether cutting a page from all matches (collect them through the indexes, sort; cost ∝ M) is
 * cheaper than walking the `(severity, id)` index until `offset + limit` matches were seen
 * (cost ∝ WALK_COST_RATIO · (offset + limit) · N / M), for the planner's estimate M of the matches
 * among N findings.
 */
export async function isSelective(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
): Promise<boolean> {
  const matches = await estimateMatching(manager, where);
  const tableRows = Math.max(await estimatedTableRows(manager), matches, 1);
  return matches * matches <= WALK_COST_RATIO * (offset + Math.max(limit, 1)) * tableRows;
}

const PAGE_COLUMNS =
  'f.id, f.severity, f.report_id, f.cwe, f.latest_verdict, f.created_at, f.current_version_id';

/** The page columns plus every column a {@link FindingWhere} may test, for a walk's bounded subquery. */
const WALK_COLUMNS = `${PAGE_COLUMNS}, f.archived`;

/**
 * The row fields of a page `p` (ordered by severity, id) joined with versions; the report's file
 * name is a per-row lookup (a page is at most 50 rows: the planner otherwise hashes all reports).
 */
const ROW_SELECT = `SELECT p.id, fv.title, p.severity::text AS severity, p.report_id AS "reportId",
         (SELECT r.filename FROM reports r WHERE r.id = p.report_id) AS "reportFilename", p.cwe,
         CASE WHEN jsonb_typeof(fv.cvss -> 'base_score') = 'number' THEN (fv.cvss ->> 'base_score')::float8 END AS "cvssBaseScore",
         p.latest_verdict AS "latestVerdict", p.created_at AS "createdAt"
       FROM page p
       JOIN finding_versions fv ON fv.id = p.current_version_id`;

const toRow = (r: RowRecord): FindingRow => ({ ...r, createdAt: new Date(r.createdAt).toISOString() });

/**
 * The page of current findings matching `where`, most severe first, then by id.
 *
 * With a text condition, no offset and archived reports excluded, the page is cut one severity
 * at a time ({@link pageBySeverity}) unless the estimate says the matches are few (at most
 * {@link COLLECT_ALL_MAX_MATCHES}: collected at once); otherwise in one statement, by collecting and sorting the
 * matches when the filter is selective or by walking the `(severity, id)` index (see
 * {@link isSelective}), so neither a rare nor a very common term reads more than it needs.
 */
export async function findingRows(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
): Promise<FindingRow[]> {
  if (limit === 0) return [];
  if (bySeverityApplies(where, offset)) {
    const estimates = await estimateBySeverity(manager, where);
    if (estimates.reduce((n, e) => n + e.matches, 0) > COLLECT_ALL_MAX_MATCHES)
      return pageBySeverity(manager, where, limit, estimates);
    return pageOfAll(manager, where, limit, offset, true);
  }
  return pageOfAll(manager, where, limit, offset, await isSelective(manager, where, limit, offset));
}

/**
 * Up to this many estimated matches, a text search's page is cut from all of them at once (one
 * statement) rather than one severity at a time: collecting ~3,000 findings costs about what two
 * more round trips with their planning cost, and a page of a rare term often needs two or three
 * severities (at 100k findings "ldap" has 48 critical matches, so a page of 50 reads two).
 */
export const COLLECT_ALL_MAX_MATCHES = 3000;

/**
 * One statement: the page of findings matching `where` in (severity, id) order, either collected
 * and sorted (`collect`) or by walking the `(severity, id)` index until `offset + limit` matches.
 */
async function pageOfAll(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
  collect: boolean,
): Promise<FindingRow[]> {
  const p = where.params.clone();
  const window = `LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`;
  const page = collect
    ? `m AS MATERIALIZED (SELECT ${PAGE_COLUMNS} FROM findings f WHERE ${where.sql}),
       page AS (SELECT * FROM m f ORDER BY f.severity, f.id ${window})`
    : `page AS (SELECT ${PAGE_COLUMNS} FROM findings f WHERE ${where.sql} ORDER BY f.severity, f.id ${window})`;
  const rows: RowRecord[] = await manager.query(
    `WITH ${page} ${ROW_SELECT} ORDER BY p.severity, p.id`,
    p.values,
  );
  return rows.map(toRow);
}

/** Whether a page for `where` at `offset` is cut one severity at a time (see {@link pageBySeverity}). */
function bySeverityApplies(where: FindingWhere, offset: number): boolean {
  return where.hasText && offset === 0 && !where.applied.includeArchived;
}

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

/**
 * A page and the exact total in one statement, for a selective filter: the matches are collected
 * once (one pass through the indexes), then counted by a scalar subquery and sorted for the page.
 */
async function selectivePageAndTotal(
  manager: EntityManager,
  where: FindingWhere,
  limit: number,
  offset: number,
): Promise<{ rows: FindingRow[]; total: number }> {
  const p = where.params.clone();
  const [row]: { total: number; rows: RowRecord[] }[] = await manager.query(
    `WITH m AS MATERIALIZED (SELECT ${PAGE_COLUMNS} FROM findings f WHERE ${where.sql}),
          page AS (SELECT * FROM m f ORDER BY f.severity, f.id LIMIT ${p.add(limit)} OFFSET ${p.add(offset)})
     SELECT (SELECT count(*) FROM m)::int AS total,
            (SELECT coalesce(json_agg(x ORDER BY x.severity_rank, x.id), '[]'::json)
             FROM (SELECT q.*, array_position(enum_range(NULL::finding_severity), q.severity::finding_severity) AS severity_rank
                   FROM (${ROW_SELECT}) q) x) AS rows`,
    p.values,
  );
  return {
    total: row.total,
    rows: row.rows.map(({ severity_rank: _rank, ...r }: RowRecord & { severity_rank?: number }) => toRow(r)),
  };
}

/** The exact number of current findings matching `where` (a plain count, never a window function). */
export async function countMatching(manager: EntityManager, where: FindingWhere): Promise<number> {
  const [row]: { total: number }[] = await manager.query(
    `SELECT count(*)::int AS total FROM findings f WHERE ${where.sql}`,
    where.params.values,
  );
  return row.total;
}

/**
 * Current findings matching a filter: `total` is the exact number of distinct matches even when
 * `rows` is capped at `limit` (≤ 50); `filter` echoes what was applied, including the weakness
 * classes a text was widened to. Archived reports are excluded unless `includeArchived`.
 *
 * The total is never a window function: a filter on severity/report only reads the trigger-kept
 * `finding_severity_counts`; a selective filter collects its matches once and counts them with a
 * scalar subquery in the same statement as the page; a broad one runs a separate count beside the
 * page (concurrently when the manager is not bound to one connection). A text filter (first page,
 * archived excluded) always counts beside its page, which is cut one severity at a time
 * ({@link pageBySeverity}) unless the estimate says its matches are few.
 * Results are cached per corpus version. The page and the total are several statements: call it
 * inside `runReadOnly` (REPEATABLE READ) for one snapshot while imports may commit, as the agent's
 * tools and the findings API do.
 *
 * @throws QueryValidationError for a bad filter value (unknown severity, non-integer id, unknown report).
 */
export async function searchFindings(
  manager: EntityManager,
  input: SearchFindingsInput = {},
  options?: QueryOptions,
): Promise<SearchFindingsResult> {
  const filter = normaliseFilter(input, ['limit', 'offset']);
  const limit = intInRange('limit', input.limit, 0, SEARCH_ROWS_CAP, DEFAULT_SEARCH_LIMIT);
  const offset = intInRange('offset', input.offset, 0, 1_000_000_000, 0);
  return cachedQuery(manager, 'searchFindings', { filter, limit, offset }, options, async () => {
    const where = await buildFindingWhere(manager, filter);
    let rows: FindingRow[];
    let total: number;
    if (answerableFromSummary(filter)) {
      const [page, summary] = await concurrently(manager, [
        () => findingRows(manager, where, limit, offset),
        () => severitySummary(manager, filter, where),
      ]);
      rows = page;
      total = summary.reduce((n, s) => n + s.findings, 0);
    } else if (
      limit > 0 &&
      !bySeverityApplies(where, offset) &&
      (await isSelective(manager, where, limit, offset))
    ) {
      ({ rows, total } = await selectivePageAndTotal(manager, where, limit, offset));
    } else {
      // The count, the longer of the two, is sent first.
      [total, rows] = await concurrently(manager, [
        () => countMatching(manager, where),
        () => findingRows(manager, where, limit, offset),
      ]);
    }
    return { total, rows, limit, offset, filter: where.applied };
  });
}
