import type { AnswerVerification } from '@corpus-chat/contracts';
import { numberTokens, type NumberToken } from './number-tokens';

/** One tool call of the turn: its name, its arguments and the JSON text the model saw as its result. */
export interface ProvenanceEvidence {
  name: string;
  args: unknown;
  content: string;
}

export interface ProvenanceInput {
  answer: string;
  /** The operator's message of this turn (its numbers, like "top 3", may be repeated). */
  userMessage: string;
  evidence: readonly ProvenanceEvidence[];
}

/**
 * Checks every number of `answer` against the turn's sources: each number in a tool result's
 * content or a call's arguments (counts, ids, limits, CVSS scores, numbers inside returned text),
 * each number of the operator's message, and exact arithmetic over the tool results' counts: a + b,
 * |a − b|, the sum of a count over a returned list (or over any part of a list of at most
 * {@link SUBSET_MAX} items, like the five severities) or over several calls, how many items a list
 * holds (in all, per repeated text value, with a positive count), and a share a/b (×100 for a
 * percentage) rounded or truncated to the decimals the answer writes. Ids, scores, arguments and
 * the message's numbers are supported as written but never added up. Identifiers (`CVE-2021-44228`,
 * `2.14.1`, `CWE-89`) are supported when written in a source or when each numeric part is a source
 * number. Pure and deterministic.
 *
 * Returns `checked`: how many numbers the answer states; `unsupported`: each unsupported number as
 * written, once, in order of appearance.
 */
export function verifyNumbers(input: ProvenanceInput): AnswerVerification {
  const tokens = numberTokens(input.answer);
  if (!tokens.length) return { checked: 0, unsupported: [] };
  const sources = collectSources(input);
  const unsupported: string[] = [];
  for (const t of tokens)
    if (!isSupported(t, sources) && !unsupported.includes(t.text)) unsupported.push(t.text);
  return { checked: tokens.length, unsupported };
}

/**
 * The message sent to a model whose answer held unsupported numbers: names them, lists each tool
 * result's total (or says no tool was called) and asks for an answer from those results only.
 */
export function reaskMessage(v: AnswerVerification, evidence: readonly ProvenanceEvidence[]): string {
  const named = v.unsupported.map((n) => `"${n}"`).join(', ');
  const lines = [
    `Your answer states ${v.unsupported.length === 1 ? 'a number' : 'numbers'} that no tool result of this turn supports: ${named}.`,
  ];
  if (!evidence.length)
    lines.push(
      'You called no tool in this turn, so no number about the corpus is supported yet: call a tool for each number you state.',
    );
  else {
    lines.push('The tool results of this turn:');
    for (const e of evidence) lines.push(`- ${e.name}(${compactArgs(e.args)}): ${totalOf(e.content)}`);
  }
  lines.push(
    'Answer again using only numbers from these results, the question, or exact sums, differences and percentages of them; ' +
      'if a number you need is not there, call a tool for it or say that you do not know it.',
  );
  return lines.join('\n');
}

/** Items of a list whose every part sum is a supported number (the severities, the verdicts). */
export const SUBSET_MAX = 6;

interface Sources {
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
const norm = (n: number) => Math.round(n * 1e6) / 1e6;
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
function collectSources(input: ProvenanceInput): Sources {
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

function isSupported(t: NumberToken, s: Sources): boolean {
  if (t.kind === 'identifier') {
    if (containsLiteral(s.text, t.text.toLowerCase())) return true;
    return t.parts.every((p) => (/^\d+$/.test(p) ? s.written.has(Number(p)) : containsLiteral(s.text, p)));
  }
  if (t.cut && containsLiteral(s.text, t.text, true)) return true;
  if (!t.percent && (s.written.has(norm(t.value)) || numberSupported(t.value, s))) return true;
  if (t.percent && s.written.has(norm(t.value))) return true;
  if ((t.percent || t.decimals > 0) && shareSupported(t.value, t.decimals, t.percent ? 100 : 1, s))
    return true;
  return !!t.spaced && t.spaced.every((n) => numberSupported(n, s));
}

/** `x` is a source number, or a + b or |a − b| of two counts (two occurrences when a = b). */
function numberSupported(x: number, s: Sources): boolean {
  const v = norm(x);
  if (s.written.has(v) || s.operands.has(v)) return true;
  for (const [a, count] of s.operands) {
    const b = norm(v - a);
    if (s.operands.has(b) && (b !== a || count > 1)) return true;
    if (v > 0 && s.operands.has(norm(a + v))) return true;
    if (v === 0 && count > 1) return true;
  }
  return false;
}

/**
 * Whether some a/b × scale, rounded or truncated to `decimals` places, is `written`: b a count or
 * tally of the tool results, a one of those or a sum of some of them ("high or critical: 9.1%").
 * For each b the a lie in one interval, found by binary search over the sorted parts.
 */
function shareSupported(written: number, decimals: number, scale: number, s: Sources): boolean {
  const unit = 10 ** -decimals;
  const target = norm(written);
  for (const b of s.wholes) {
    if (b <= 0) continue;
    const lo = ((written - unit / 2) * b) / scale - 1e-9;
    const hi = ((written + unit) * b) / scale;
    for (let i = lowerBound(s.parts, lo); i < s.parts.length && s.parts[i] < hi; i++) {
      const r = (s.parts[i] / b) * scale;
      if (round(r, decimals) === target || trunc(r, decimals) === target) return true;
    }
  }
  return false;
}

const round = (x: number, d: number) => norm(Math.round(x * 10 ** d + 1e-9) / 10 ** d);
const trunc = (x: number, d: number) => norm(Math.floor(x * 10 ** d + 1e-9) / 10 ** d);

function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Whether `hay` holds `needle` not inside a longer word or number (`CWE-8` is not in `CWE-89`,
 * `2.14` is not in `2.14.1`); with `prefix`, the needle may be the start of a longer number.
 */
function containsLiteral(hay: string, needle: string, prefix = false): boolean {
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = hay[at - 1];
    const after = hay.slice(at + needle.length, at + needle.length + 2);
    if (before && /[\p{L}\p{N}_]/u.test(before)) continue;
    if (!prefix && /^(?:\d|[-.:]\d)/.test(after)) continue;
    return true;
  }
  return false;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function compactArgs(args: unknown): string {
  const json = typeof args === 'string' ? args : (JSON.stringify(args) ?? '');
  return json.length > 200 ? `${json.slice(0, 200)}…` : json;
}

/** "total 77" for a result with a total, its error for a failed call, else "no total". */
function totalOf(content: string): string {
  const v = parseJson(content);
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (typeof o['error'] === 'string') return `failed (${o['error']})`;
    const parts: string[] = [];
    if (typeof o['total'] === 'number') parts.push(`total ${o['total']}`);
    if (typeof o['returned'] === 'number') parts.push(`${o['returned']} rows returned`);
    const findings = o['findings'] as Record<string, unknown> | undefined;
    if (findings && typeof findings['total'] === 'number')
      parts.push(`${findings['total']} findings in total`);
    if (parts.length) return parts.join(', ');
  }
  return 'no total (see the result)';
}
