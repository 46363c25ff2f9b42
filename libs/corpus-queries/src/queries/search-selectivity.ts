import type { EntityManager } from 'typeorm';
import { SEVERITIES } from '@corpus-chat/contracts';

/**
 * What ANALYZE stored for one index expression, as the planner reads it (`pg_statistic`, seen
 * through `pg_stats`): the fraction of NULLs and the most common elements (lexemes of a tsvector,
 * ids of an int array) with their frequency among the non-NULL rows. `null` when the expression
 * has no statistics row at all (never analysed).
 */
export type ElementStats = {
  nullFrac: number;
  /** Absent when the row has no most-common-elements slot. */
  elements?: { freq: Map<string, number>; minFreq: number };
} | null;

/** PostgreSQL's DEFAULT_TS_MATCH_SEL (src/backend/tsearch/ts_selfuncs.c). */
const DEFAULT_TS_MATCH_SEL = 0.005;
/** PostgreSQL's DEFAULT_CONTAIN_SEL (src/include/utils/selfuncs.h). */
const DEFAULT_CONTAIN_SEL = 0.005;

/** A parsed tsquery (the text form PostgreSQL prints: `'a' & !'b' | 'c' <-> 'd'`). */
export type TsQueryNode =
  | { op: 'lexeme'; lexeme: string }
  | { op: 'not'; arg: TsQueryNode }
  | { op: 'and' | 'or' | 'phrase'; left: TsQueryNode; right: TsQueryNode };

/** Thrown for tsquery text this estimator does not model (weights, prefixes); callers fall back to EXPLAIN. */
export class UnsupportedTsQueryError extends Error {}

/**
 * Parses the text form of a tsquery as PostgreSQL prints it (`tsqueryout`): quoted lexemes
 * (`''` and `\\` escaped), `!`, `<->` / `<N>`, `&`, `|` (binding in that order, tightest first)
 * and parentheses. The empty string is the empty query (`null`).
 *
 * @throws UnsupportedTsQueryError for a weight or prefix marker (`:A`, `:*`), which
 *   `websearch_to_tsquery` never produces, or for text that is not a printed tsquery.
 */
export function parseTsQuery(text: string): TsQueryNode | null {
  let i = 0;
  const skip = () => {
    while (text[i] === ' ') i++;
  };
  const fail = (why: string): never => {
    throw new UnsupportedTsQueryError(`${why} at ${i} in ${JSON.stringify(text)}`);
  };
  const operand = (): TsQueryNode => {
    skip();
    if (text[i] === '!') {
      i++;
      return { op: 'not', arg: operand() };
    }
    if (text[i] === '(') {
      i++;
      const inner = or();
      skip();
      if (text[i] !== ')') fail('expected )');
      i++;
      return inner;
    }
    if (text[i] !== "'") fail('expected a quoted lexeme');
    i++;
    let lexeme = '';
    for (;;) {
      if (i >= text.length) fail('unterminated lexeme');
      const c = text[i];
      if (c === '\\') {
        lexeme += text[i + 1] ?? '';
        i += 2;
      } else if (c === "'" && text[i + 1] === "'") {
        lexeme += "'";
        i += 2;
      } else if (c === "'") {
        i++;
        break;
      } else {
        lexeme += c;
        i++;
      }
    }
    if (text[i] === ':') fail('weights and prefix matches are not modelled');
    return { op: 'lexeme', lexeme };
  };
  const phrase = (): TsQueryNode => {
    let left = operand();
    for (;;) {
      skip();
      const m = /^<(-|\d+)>/.exec(text.slice(i));
      if (!m) return left;
      i += m[0].length;
      left = { op: 'phrase', left, right: operand() };
    }
  };
  const binary = (op: 'and' | 'or', sign: string, next: () => TsQueryNode) => (): TsQueryNode => {
    let left = next();
    for (;;) {
      skip();
      if (text[i] !== sign) return left;
      i++;
      left = { op, left, right: next() };
    }
  };
  const and = binary('and', '&', phrase);
  const or = binary('or', '|', and);
  skip();
  if (i >= text.length) return null;
  const tree = or();
  skip();
  if (i < text.length) fail('unexpected text');
  return tree;
}

const clamp = (p: number) => Math.min(1, Math.max(0, p));

/**
 * The planner's selectivity of `vector @@ query` for a tsvector expression with statistics
 * `stats`, as PostgreSQL 13–17 computes it (`tsquerysel` / `mcelem_tsquery_selec` /
 * `tsquery_opr_selec` in src/backend/tsearch/ts_selfuncs.c): a lexeme's frequency among the most
 * common elements, or min(0.005, minfreq / 2) when it is not one of them (0.005 without
 * statistics); AND and phrase multiply, OR is s1 + s2 − s1·s2, NOT is 1 − s; the result is scaled
 * by the non-NULL fraction. An empty query matches nothing (0).
 */
export function tsQuerySelectivity(query: TsQueryNode | null, stats: ElementStats): number {
  if (query === null) return 0;
  const elements = stats?.elements;
  const visit = (node: TsQueryNode): number => {
    switch (node.op) {
      case 'lexeme':
        if (!elements) return DEFAULT_TS_MATCH_SEL;
        return elements.freq.get(node.lexeme) ?? Math.min(DEFAULT_TS_MATCH_SEL, elements.minFreq / 2);
      case 'not':
        return clamp(1 - visit(node.arg));
      case 'and':
      case 'phrase':
        return clamp(visit(node.left) * visit(node.right));
      case 'or': {
        const s1 = visit(node.left);
        const s2 = visit(node.right);
        return clamp(s1 + s2 - s1 * s2);
      }
    }
  };
  const selectivity = visit(query);
  return stats ? selectivity * (1 - stats.nullFrac) : selectivity;
}

/**
 * The planner's selectivity of `array && ids` for an int-array expression with statistics `stats`
 * (`calc_arraycontsel` / `mcelem_array_contain_overlap_selec`, src/backend/utils/adt/array_selfuncs.c):
 * each distinct id contributes its frequency among the most common elements, or
 * min(0.005, minfreq / 2) when it is not one of them (0.005 without statistics), combined as
 * s + e − s·e; scaled by the non-NULL fraction when there are statistics.
 */
export function arrayOverlapSelectivity(ids: readonly number[], stats: ElementStats): number {
  const elements = stats?.elements;
  let selectivity = 0;
  for (const id of new Set(ids)) {
    const e = elements
      ? (elements.freq.get(String(id)) ?? Math.min(DEFAULT_CONTAIN_SEL, elements.minFreq / 2))
      : DEFAULT_CONTAIN_SEL;
    selectivity = clamp(selectivity + e - selectivity * e);
  }
  return stats ? selectivity * (1 - stats.nullFrac) : selectivity;
}

/** Statistics of the per-severity index expressions (migration CorpusSearchBySeverity), in SEVERITIES order. */
export interface SeverityIndexStats {
  search: ElementStats[];
  cwe: ElementStats[];
}

interface StatsRow {
  index: string;
  nullFrac: number;
  elements: string[] | null;
  freqs: number[] | null;
}

/**
 * Reads the statistics of `ix_findings_search_<severity>` and `ix_findings_cwe_<severity>` from
 * `pg_stats` (one statement). A tsvector's most-common-elements slot carries two numbers more
 * than elements (min and max frequency), an array's three (min, max, NULL-element frequency);
 * a slot of another shape is treated as absent, as the planner does.
 */
export async function readSeverityIndexStats(manager: EntityManager): Promise<SeverityIndexStats> {
  const rows: StatsRow[] = await manager.query(
    `SELECT s.tablename AS index, s.null_frac::float8 AS "nullFrac",
            s.most_common_elems::text::text[] AS elements, s.most_common_elem_freqs::float8[] AS freqs
       FROM pg_stats s
      WHERE s.schemaname = current_schema() AND s.tablename = ANY($1::text[])`,
    [SEVERITIES.flatMap((s) => [`ix_findings_search_${s}`, `ix_findings_cwe_${s}`])],
  );
  const byIndex = new Map(rows.map((r) => [r.index, r]));
  const stats = (index: string, extraNumbers: number): ElementStats => {
    const row = byIndex.get(index);
    if (!row) return null;
    const { elements, freqs } = row;
    if (!elements || !freqs || freqs.length !== elements.length + extraNumbers)
      return { nullFrac: row.nullFrac };
    return {
      nullFrac: row.nullFrac,
      elements: { freq: new Map(elements.map((e, i) => [e, freqs[i]])), minFreq: freqs[elements.length] },
    };
  };
  return {
    search: SEVERITIES.map((s) => stats(`ix_findings_search_${s}`, 2)),
    cwe: SEVERITIES.map((s) => stats(`ix_findings_cwe_${s}`, 3)),
  };
}
