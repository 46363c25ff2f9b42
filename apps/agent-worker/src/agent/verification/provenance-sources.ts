/**
 * The numbers a turn's sources hold for the number provenance check (`verifyNumbers`): what the
 * tool results, the calls' arguments and the operator's message write, and the exact facts derived
 * from the tool results (sums, part sums, tallies).
 */
import type { ProvenanceInput } from './number-provenance';
import { numberTokens } from './number-tokens';

/** A list of at most this many items (the five severities, the four verdicts) supports every part sum; a longer one its total. */
const SUBSET_MAX = 6;

export interface Sources {
  /** Every number a source writes or tallies (counts, ids, scores, list lengths), with how often each occurs. */
  written: Map<number, number>;
  /** The counts arithmetic adds and subtracts: tool results' counts and their sums, with how often each occurs. */
  operands: Map<number, number>;
  /** Counts and tallies of the tool results: the wholes of shares. */
  wholes: number[];
  /** The wholes and the sums of some of them, ascending: the parts of shares. */
  parts: number[];
  /** Every source text, lower-cased, for identifiers. */
  text: string;
}

/** Numbers compared as keys: sums of decimals such as CVSS scores must not drift. */
export const norm = (n: number) => Math.round(n * 1e6) / 1e6;
const add = (m: Map<number, number>, n: number) => {
  if (Number.isFinite(n)) m.set(norm(n), (m.get(norm(n)) ?? 0) + 1);
};

/**
 * The turn's numbers in three kinds: counts in tool results (and their sums), which arithmetic
 * combines; tallies of returned lists (how many items, how many with a value), stated as they are
 * or used in shares; and numbers that are only quoted (ids, CWE ids, scores, numbers inside text,
 * call arguments, the operator's message), supported as written but never added up, so a small
 * limit or row count does not make every total ± a few look supported.
 */
export function collectSources(input: ProvenanceInput): Sources {
  const counts = new Map<number, number>();
  const tallies: number[] = [];
  const quoted = new Map<number, number>();
  /** Sums of some items of a list, or of one field over some calls: for a + b, not for shares. */
  const partial: number[] = [];
  const texts: string[] = [];
  /** One numeric field across calls (`total`, `groups[high].count`): summed over several calls. */
  const series = new Map<string, number[]>();
  /** Keys of listed items with a positive count, per list, across calls (for "N reports have …"). */
  const keysByList = new Map<string, Set<string>>();

  const readText = (s: string) => {
    texts.push(s);
    for (const t of numberTokens(s)) {
      if (t.kind === 'number') add(quoted, t.value);
      else for (const p of t.parts) if (/^\d+$/.test(p)) add(quoted, Number(p));
    }
  };
  const walk = (v: unknown, path: string, key: string, inResult: boolean): void => {
    if (typeof v === 'number') {
      texts.push(String(v));
      if (!inResult || !isCountKey(key)) return add(quoted, v);
      add(counts, v);
      series.set(path, [...(series.get(path) ?? []), v]);
    } else if (typeof v === 'string') readText(v);
    else if (Array.isArray(v)) {
      const objects = v.filter(
        (x): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x),
      );
      if (objects.length && inResult) {
        const facts = listFacts(objects, path, keysByList);
        tallies.push(...facts.tallies);
        for (const n of facts.sums) add(counts, n);
        partial.push(...facts.partSums);
      }
      v.forEach((x, i) => walk(x, `${path}[${itemKey(x) ?? i}]`, key, inResult));
    } else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (inResult && typeof o['groupCount'] === 'number' && Array.isArray(o['groups'])) {
        // "… and 81 more": the groups not returned; "in 131 CWEs": the groups without the one of findings with none.
        tallies.push(o['groupCount'] - o['groups'].length);
        if (o['groups'].some((g) => itemKey(g) === 'none')) tallies.push(o['groupCount'] - 1);
      }
      for (const [k, x] of Object.entries(o)) walk(x, `${path}.${k}`, k, inResult);
    }
  };

  readText(input.userMessage);
  for (const answer of input.earlierAnswers ?? []) readText(answer);
  for (const e of input.evidence) {
    walk(typeof e.args === 'string' ? parseJson(e.args) : e.args, `${e.name}:args`, '', false);
    walk(parseJson(e.content), `${e.name}:`, '', true);
  }
  for (const values of series.values()) if (values.length > 1) partial.push(...partSums(values));
  for (const keys of keysByList.values())
    tallies.push(keys.size, keys.has('none') ? keys.size - 1 : keys.size);

  const shareParts = new Map(counts);
  for (const n of tallies) add(shareParts, n);
  const operands = new Map(counts);
  for (const n of partial) add(operands, n);
  const written = new Map(shareParts);
  for (const [n, c] of quoted) written.set(n, (written.get(n) ?? 0) + c);
  return {
    written,
    operands,
    wholes: [...shareParts.keys()],
    parts: [...new Set([...shareParts.keys(), ...partial.map(norm)])].sort((x, y) => x - y),
    text: texts.join('\n').toLowerCase(),
  };
}

/**
 * Exact facts of one returned list of items. Tallies: its length, per numeric field (ids aside)
 * how many items have it positive, per repeated text value how many items have it. Sums: each
 * numeric field over the whole list; part sums: over any part of a short list (the severities).
 */
function listFacts(
  items: Record<string, unknown>[],
  path: string,
  keysByList: Map<string, Set<string>>,
): { tallies: number[]; sums: number[]; partSums: number[] } {
  const tallies = [items.length];
  const sums: number[] = [];
  const parts: number[] = [];
  const numeric = new Map<string, number[]>();
  const byText = new Map<string, number>();
  const listPath = path.replace(/^[^:]*:/, '');
  for (const item of items) {
    for (const [k, x] of Object.entries(item)) {
      if (typeof x === 'number' && isCountKey(k)) numeric.set(k, [...(numeric.get(k) ?? []), x]);
      else if (typeof x === 'string' && x.length <= 40)
        byText.set(`${k}=${x}`, (byText.get(`${k}=${x}`) ?? 0) + 1);
    }
    const key = itemKey(item);
    if (
      key !== undefined &&
      Object.entries(item).some(([k, x]) => typeof x === 'number' && isCountKey(k) && x > 0)
    ) {
      keysByList.set(listPath, (keysByList.get(listPath) ?? new Set()).add(key));
    }
  }
  for (const values of numeric.values()) {
    tallies.push(values.filter((x) => x > 0).length);
    sums.push(values.reduce((x, y) => x + y, 0));
    if (values.length <= SUBSET_MAX) parts.push(...partSums(values));
  }
  // A text field that differs on every item (a name, a title) tallies nothing.
  const distinct = new Map<string, number>();
  for (const k of byText.keys()) distinct.set(k.split('=')[0], (distinct.get(k.split('=')[0]) ?? 0) + 1);
  for (const [k, n] of byText) if ((distinct.get(k.split('=')[0]) ?? 0) < items.length) tallies.push(n);
  return { tallies, sums, partSums: parts };
}

/** Every sum of two or more of `values` when there are at most SUBSET_MAX of them, else their total. */
function partSums(values: readonly number[]): number[] {
  if (values.length > SUBSET_MAX) return [values.reduce((a, b) => a + b, 0)];
  const out: number[] = [];
  for (let mask = 1; mask < 1 << values.length; mask++) {
    if ((mask & (mask - 1)) === 0) continue; // one item: already a direct number
    let sum = 0;
    for (let i = 0; i < values.length; i++) if (mask & (1 << i)) sum += values[i];
    out.push(sum);
  }
  return out;
}

/** Fields whose numbers name something rather than count it (ids, CWE ids, scores). */
const NAMING_KEY = /^(?:id|cwe|cvss|score|base_score|version)$|Id$|Score$/;
const isCountKey = (key: string) => !NAMING_KEY.test(key);

/** The key naming a listed item across calls: `key` (a group), else `filename`, else `id`. */
function itemKey(x: unknown): string | undefined {
  if (!x || typeof x !== 'object') return undefined;
  const o = x as Record<string, unknown>;
  const k = o['key'] ?? o['filename'] ?? o['id'];
  return typeof k === 'string' || typeof k === 'number' ? String(k) : undefined;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
