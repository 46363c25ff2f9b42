import type { Token } from './question-lexer';
import { V } from './vocabulary';

/** A class of words: a set, a pattern or a test (of the word and its index). */
type WordTest = Set<string> | RegExp | ((w: string, i: number) => boolean);
const matches = (t: WordTest, w = '', i = -1) =>
  t instanceof Set ? t.has(w) : t instanceof RegExp ? t.test(w) : t(w, i);

/** Token indexes [from, to). */
export type Range = [number, number];

/**
 * A question being parsed: its tokens, their lower-case words (`⟨kind⟩` for report names, CWE ids,
 * quotes and `#n`), and which tokens a recognised part has consumed (`used`): whatever is left
 * unused at the end is what the planner did not understand.
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
  /** Whether the words from `at` are `seq`, none of them consumed yet. */
  freeSeq = (at: number, seq: string[]) =>
    at >= 0 && seq.every((w, k) => this.words[at + k] === w && !this.used[at + k]);

  /** The operator's own wording of tokens [a, b). */
  spanText([a, b]: Range): string {
    return this.source
      .slice(this.tokens[a].start, this.tokens[b - 1].end)
      .replace(/\s+/g, ' ')
      .trim();
  }

  consume([a, b]: Range): void {
    for (let k = a; k < b; k++) this.used[k] = true;
  }

  /**
   * The negating words ("not", "non", "other than", "aren't"…) governing the part at token `at`:
   * within three unused gap words ("the", "are", "rated") before it, or undefined.
   */
  negationBefore(at: number): Range | undefined {
    for (let k = at - 1, gaps = 0; k >= 0 && gaps <= 3 && !this.used[k]; k--, gaps++) {
      const w = this.words[k];
      if (V.negationPairs.some((pair) => this.freeSeq(k - 1, pair))) return [k - 1, k + 1];
      if (V.negation.has(w) || w.endsWith("n't")) return [k, k + 1];
      if (!V.negationGap.has(w)) return undefined;
    }
    return undefined;
  }

  /** Consumes the negation governing token `at` (see `negationBefore`) and returns its range. */
  takeNegation(at: number): Range | undefined {
    const neg = this.negationBefore(at);
    if (neg) this.consume(neg);
    return neg;
  }

  /** Consumes tokens [a, b) and the negation governing them: whether there was one. */
  claim([a, b]: Range): boolean {
    const neg = this.takeNegation(a);
    this.consume([a, b]);
    return !!neg;
  }

  /** Index `a` moved left over unused words that `t` matches. */
  stretchLeft(a: number, t: WordTest): number {
    while (a > 0 && !this.used[a - 1] && matches(t, this.words[a - 1], a - 1)) a--;
    return a;
  }

  /** Index `b` moved right over unused words that `t` matches. */
  stretchRight(b: number, t: WordTest): number {
    while (b < this.words.length && !this.used[b] && matches(t, this.words[b], b)) b++;
    return b;
  }
}
