/**
 * The numbers a turn's sources hold for `verifyNumbers`, in two tiers: facts that stand alone, and
 * page facts that only stand beside the result's total.
 */
import type { ProvenanceInput } from './number-provenance';
import { isRecord as isObj, tryJson } from '../model/tool-call-json';
import { numberTokens } from './number-tokens';

/** A list of at most this many items (the five severities, the four verdicts) supports every part sum; a longer one its total. */
const SUBSET_MAX = 6;

/** Parts of a whole: shares are a part (or a part sum, or whole − parts) over one of the wholes. */
export interface Family {
  /** The counts themselves (the groups), before sums and differences. */
  values: number[];
  wholes: number[];
  /** Ascending. */
  parts: number[];
}

/** Numbers supported as written, and the families shares are read from. */
export interface Tier {
  written: Set<number>;
  families: Family[];
}

export interface Sources {
  /** Counts, sums, whole − parts, tallies of complete lists, scores, numbers inside returned text, the operator's message. */
  strong: Tier;
  /**
   * `strong` plus page facts: `returned`, tallies of a page of rows, row ids, every call argument
   * (and the filter a result echoes), and `groupCounts`.
   */
  weak: Tier;
  /** Row ids and the numeric parts of identifiers (CWE keys, CVE ids, dates): supported when written as an id. */
  ids: Set<number>;
  /**
   * How many groups a breakdown has (`groupCount`, the groups listed, how many have a count, how
   * many reports have one): supported standalone only where the answer names them as groups.
   */
  groupCounts: Set<number>;
  /** The results' totals: an answer that states one may also quote that result's page facts. */
  totals: Set<number>;
  /** Lengths of the returned lists ("the top five" of a list of ten). */
  listLengths: number[];
  /** Every source text, lower-cased, for identifiers. */
  text: string;
}

/** Numbers compared as keys: sums of decimals such as CVSS scores must not drift. */
export const norm = (n: number) => Math.round(n * 1e6) / 1e6;

/** Fields that name something rather than count it: quoted, never added up. */
const NAMING_KEY = /^(?:cwe|cvss|score|base_score|version)$|Score$/;
const ID_KEY = /^id$|Id$/;
/** Fields that describe a page of a result, not the corpus. */
const PAGE_KEY = /^(?:returned|groupCount|limit|offset)$/;
/** Fields that hold the whole an object's other counts are parts of. */
const WHOLE_KEY = /^(?:total|findings|count)$/;
const isCountKey = (k: string) => !NAMING_KEY.test(k) && !ID_KEY.test(k) && !PAGE_KEY.test(k);

type Obj = Record<string, unknown>;

/**
 * Reads the turn's sources. A result's counts combine only within it (part sums of lists up to
 * SUBSET_MAX items, whole − parts, sums over calls); totals of different calls may be subtracted.
 * Text, scores and messages are quoted as written, never combined.
 */
export function collectSources(input: ProvenanceInput): Sources {
  const strong = new Set<number>();
  const weak = new Set<number>();
  const ids = new Set<number>();
  const groupCounts = new Set<number>();
  const totals = new Set<number>();
  const strongFamilies: Family[] = [];
  const weakFamilies: Family[] = [];
  const listLengths: number[] = [];
  const texts: string[] = [];
  /** One numeric field across calls (`total`, `groups[high].count`): summed over several calls. */
  const series = new Map<string, number[]>();
  /** Keys of listed items with a positive count, per list, across calls (for "N reports have …"). */
  const keysByList = new Map<string, Set<string>>();

  const put = (into: Set<number>, n: number) => {
    if (Number.isFinite(n)) into.add(norm(n));
  };
  /** A text's numbers; with `asIds` (a group's key or label: "79", "CWE-79") they only name things. */
  const readText = (s: string, into: Set<number>, asIds = false) => {
    texts.push(s);
    for (const t of numberTokens(s)) {
      const numbers = t.kind === 'number' ? [t.value] : t.parts.filter((p) => /^\d+$/.test(p)).map(Number);
      for (const n of numbers) {
        if (t.kind === 'identifier') put(ids, n);
        put(asIds ? ids : into, n);
      }
    }
  };
  /** Arguments (and the filter a result echoes): page facts; a CWE or an id in them also names. */
  const walkArgs = (v: unknown, key = ''): void => {
    if (typeof v === 'number') {
      texts.push(String(v));
      if (NAMING_KEY.test(key) || ID_KEY.test(key)) put(ids, v);
      return put(weak, v);
    }
    if (typeof v === 'string') return readText(v, weak);
    if (Array.isArray(v)) v.forEach((x) => walkArgs(x, key));
    else if (isObj(v)) for (const [k, x] of Object.entries(v)) walkArgs(x, k);
  };
  const walk = (
    v: unknown,
    path: string,
    key: string,
    inList: boolean,
    parentWhole?: number,
    container?: Obj,
  ): void => {
    if (typeof v === 'number') {
      texts.push(String(v));
      if (ID_KEY.test(key)) return void (put(ids, v), put(weak, v));
      if (PAGE_KEY.test(key)) return void put(weak, v);
      if (NAMING_KEY.test(key)) return void (put(strong, v), put(ids, v));
      put(strong, v);
      if (key === 'total' && !inList) put(totals, v);
      series.set(path, [...(series.get(path) ?? []), v]);
    } else if (typeof v === 'string') readText(v, strong, key === 'key' || key === 'label');
    else if (Array.isArray(v)) {
      const items = v.filter(isObj);
      if (items.length) listFacts(items, path, container);
      v.forEach((x, i) => walk(x, `${path}[${itemKey(x) ?? i}]`, key, true, parentWhole));
    } else if (isObj(v)) {
      const whole = typeof v['total'] === 'number' ? v['total'] : parentWhole;
      objectFamily(v, whole);
      if (typeof v['groupCount'] === 'number' && Array.isArray(v['groups'])) {
        // "… and 81 more": the groups not returned; "in 131 CWEs": without the group of findings with none.
        for (const n of [v['groupCount'], v['groupCount'] - v['groups'].length]) put(groupCounts, n);
        if (v['groups'].some((g) => itemKey(g) === 'none')) put(groupCounts, v['groupCount'] - 1);
      }
      // The filter a result echoes is its call's arguments.
      for (const [k, x] of Object.entries(v))
        if (k === 'filter') walkArgs(x);
        else walk(x, `${path}.${k}`, k, inList, whole, v);
    }
  };
  /** An object's counts beside one another (the severities of a report) are parts of its whole. */
  const objectFamily = (o: Obj, parentWhole: number | undefined) => {
    const parts = Object.entries(o)
      .filter(([k, x]) => typeof x === 'number' && isCountKey(k) && !WHOLE_KEY.test(k))
      .map(([, x]) => x as number);
    if (parts.length < 2) return;
    const own = Object.entries(o).find(([k, x]) => WHOLE_KEY.test(k) && typeof x === 'number')?.[1] as
      number | undefined;
    strongFamilies.push(family(parts, [own ?? parentWhole]));
  };
  /** Facts of one returned list: tallies, page facts, and per count field the sum and the parts. */
  const listFacts = (items: Obj[], path: string, container: Obj | undefined) => {
    const page = !!container && ('returned' in container || container['truncated'] === true);
    const total = typeof container?.['total'] === 'number' ? container['total'] : undefined;
    listLengths.push(items.length);
    const tallies = [items.length];
    const numeric = new Map<string, number[]>();
    const byText = new Map<string, number>();
    const listPath = path.replace(/^[^:]*:/, '');
    for (const item of items) {
      for (const [k, x] of Object.entries(item)) {
        if (typeof x === 'number' && isCountKey(k)) numeric.set(k, [...(numeric.get(k) ?? []), x]);
        else if (typeof x === 'string' && x.length <= 40)
          byText.set(`${k}=${x}`, (byText.get(`${k}=${x}`) ?? 0) + 1);
      }
      const itemK = itemKey(item);
      if (
        itemK !== undefined &&
        Object.entries(item).some(([k, x]) => typeof x === 'number' && isCountKey(k) && x > 0)
      )
        keysByList.set(listPath, (keysByList.get(listPath) ?? new Set()).add(itemK));
    }
    for (const values of numeric.values()) {
      tallies.push(values.filter((x) => x > 0).length);
      const sum = values.reduce((x, y) => x + y, 0);
      // A list's total is a whole of its counts only when they fit in it (not a report list's findings).
      strongFamilies.push(family(values, [total !== undefined && sum <= total ? total : undefined]));
    }
    // A text field that differs on every item (a name, a title) tallies nothing.
    const distinct = new Map<string, number>();
    for (const k of byText.keys()) distinct.set(k.split('=')[0], (distinct.get(k.split('=')[0]) ?? 0) + 1);
    for (const [k, n] of byText) if ((distinct.get(k.split('=')[0]) ?? 0) < items.length) tallies.push(n);
    // A breakdown's tallies count groups; a page's are page facts; a complete list's stand alone.
    const grouped = !!container && 'groupCount' in container;
    tallies.forEach((n) => put(grouped ? groupCounts : page ? weak : strong, n));
    (grouped || page ? weakFamilies : strongFamilies).push(family(tallies.slice(1), [items.length]));
    if (page && !grouped && total !== undefined) weakFamilies.push(family([items.length], [total]));
  };

  readText(input.userMessage, strong);
  for (const answer of input.earlierAnswers ?? []) readText(answer, strong);
  for (const e of input.evidence) {
    walkArgs(typeof e.args === 'string' ? parseJson(e.args) : e.args);
    walk(parseJson(e.content), `${e.name}:`, '', false);
  }
  const grand: number[] = [...totals];
  for (const values of series.values()) if (values.length > 1) grand.push(...partSums(values));
  for (const keys of keysByList.values())
    for (const n of [keys.size, keys.has('none') ? keys.size - 1 : keys.size]) put(groupCounts, n);
  strongFamilies.push({ values: grand, wholes: grand, parts: [...new Set(grand)].sort((a, b) => a - b) });

  const derive = (families: Family[], into: Set<number>) => {
    for (const f of families) for (const n of [...f.parts, ...f.wholes]) put(into, n);
  };
  // Totals of different calls: one minus another.
  for (const a of totals) for (const b of totals) if (a > b) put(strong, a - b);
  derive(strongFamilies, strong);
  derive(weakFamilies, weak);
  for (const n of [...strong, ...groupCounts]) weak.add(n);
  return {
    strong: { written: strong, families: strongFamilies },
    weak: { written: weak, families: [...strongFamilies, ...weakFamilies] },
    ids,
    groupCounts,
    totals,
    listLengths,
    text: texts.join('\n').toLowerCase(),
  };
}

/**
 * The family of `values`: parts are each value, its part sums and each whole minus those; wholes
 * are their sum and the given wholes (undefined ones dropped).
 */
function family(values: readonly number[], wholes: (number | undefined)[]): Family {
  const sum = values.reduce((a, b) => a + b, 0);
  const ws = [...new Set([sum, ...wholes.filter((w): w is number => w !== undefined)].map(norm))];
  const parts = new Set([...values, ...partSums(values)].map(norm));
  for (const w of ws) for (const p of [...parts]) if (p < w) parts.add(norm(w - p));
  return { values: [...values], wholes: ws, parts: [...parts].sort((a, b) => a - b) };
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

/** The key naming a listed item across calls: `key` (a group), else `filename`, else `id`. */
function itemKey(x: unknown): string | undefined {
  if (!isObj(x)) return undefined;
  const k = x['key'] ?? x['filename'] ?? x['id'];
  return typeof k === 'string' || typeof k === 'number' ? String(k) : undefined;
}

/** `text` parsed as JSON, else the text itself. */
export const parseJson = (text: string): unknown => tryJson(text) ?? text;
