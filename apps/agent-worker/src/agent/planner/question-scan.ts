import type { Token } from './question-lexer';
import { V } from './vocabulary';

/** A class of words: a set, a table's keys, a pattern or a test. */
type WordTest = Set<string> | Record<string, unknown> | RegExp | ((w: string) => boolean);
const matches = (t: WordTest, w = '') =>
  t instanceof Set ? t.has(w) : t instanceof RegExp ? t.test(w) : typeof t === 'function' ? t(w) : w in t;

/**
 * A question being parsed: its tokens, their lower-case words (`⟨kind⟩` for report names, CWE ids,
 * quotes and `#n`), and which tokens a recognised part of the question has consumed (`used`).
 * Whatever is left unused at the end is what the planner did not understand.
 */
export class Scan {
  readonly words = this.tokens.map((t) => (t.kind === 'word' || t.kind === 'num' ? t.w : `⟨${t.kind}⟩`));
  readonly used = this.tokens.map(() => false);
  constructor(
    readonly source: string,
    readonly tokens: Token[],
  ) {}
  has = (...ws: string[]) => ws.some((w) => this.words.includes(w));
  hasAny = (set: WordTest) => this.words.some((w) => matches(set, w));
  /** Like `hasAny`, counting only tokens no recognised part has consumed. */
  hasAnyUnused = (set: WordTest) => this.words.some((w, i) => !this.used[i] && matches(set, w));
  seq = (at: number, seq: string[]) => seq.every((w, k) => this.words[at + k] === w);
}

/** The operator's own wording of tokens [a, b). */
export const spanText = (s: Scan, [a, b]: [number, number]): string =>
  s.source
    .slice(s.tokens[a].start, s.tokens[b - 1].end)
    .replace(/\s+/g, ' ')
    .trim();

/**
 * Where a negation governs the part starting at token `at`: the index range [from, to) of the
 * negating words ("not", "non", "excluding", "other than", "aren't"…) within three words before
 * `at` (only gap words such as "the", "are", "rated" in between), or undefined. Tokens already
 * consumed by another part are not negations of this one.
 */
export function negationBefore(s: Scan, at: number): [number, number] | undefined {
  for (let k = at - 1, gaps = 0; k >= 0 && gaps <= 3; k--) {
    const w = s.words[k];
    if (s.used[k]) return undefined;
    for (const pair of V.negationPairs)
      if (k >= 1 && s.seq(k - 1, pair) && !s.used[k - 1]) return [k - 1, k + 1];
    if (V.negation.has(w) || w.endsWith("n't")) return [k, k + 1];
    if (!V.negationGap.has(w)) return undefined;
    gaps++;
  }
  return undefined;
}

/** Whether the words from `at` are `seq`, none of them consumed yet. */
export const freeSeq = (s: Scan, at: number, seq: string[]): boolean =>
  at >= 0 && s.seq(at, seq) && seq.every((_, k) => !s.used[at + k]);

/** Marks [from, to) consumed. */
export function consume(s: Scan, [a, b]: [number, number]): void {
  for (let k = a; k < b; k++) s.used[k] = true;
}

/** Consumes the negation governing token `at` (see `negationBefore`) and returns its range. */
export function takeNegation(s: Scan, at: number): [number, number] | undefined {
  const neg = negationBefore(s, at);
  if (neg) consume(s, neg);
  return neg;
}

/** Index `a` moved left over unused words that `t` matches. */
export function stretchLeft(s: Scan, a: number, t: WordTest): number {
  while (a > 0 && !s.used[a - 1] && matches(t, s.words[a - 1])) a--;
  return a;
}

/** Index `b` moved right over unused words that `t` matches. */
export function stretchRight(s: Scan, b: number, t: WordTest): number {
  while (b < s.words.length && !s.used[b] && matches(t, s.words[b])) b++;
  return b;
}
