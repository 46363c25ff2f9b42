import { V, correctWord, union } from './vocabulary';

/** One token of an operator's question. */
export interface Token {
  /** As written (case kept), for topics and names. */
  orig: string;
  /** Lower case, misspellings of structure words corrected. */
  w: string;
  kind: 'word' | 'num' | 'punct' | 'report' | 'cwe' | 'quote' | 'hashnum';
  /** Value of num / cwe / hashnum tokens, or the report file name / quoted text. */
  value?: number | string;
  start: number;
  end: number;
}

/** Vocabulary words, never "corrected" into another word. */
const KNOWN = union(
  ...[V.edit, V.finding, V.report, V.cwe, V.count, V.list, V.detail, V.top, V.breakdown, V.overview],
  ...[V.write, V.reference, V.stop, V.severities, V.verdicts, V.groupBy, V.ordinals, V.numbers],
);
const isKnown = (w: string) => KNOWN.has(w);

/**
 * File names of reports as operators paste them: `dd__flawfinder.sarif`, `sechub__gosec_2.9.5.sarif.json`.
 * The name is bounded (255 characters, a file name's limit on common file systems): unbounded, a
 * long run of letters made the search quadratic.
 */
const REPORT_RE =
  /[\p{L}\p{N}_][\p{L}\p{N}_.+-]{0,254}\.(?:sarif(?:\.json)?|jsonl|ndjson|json|xml|html?|csv|nessus|txt)(?![\p{L}\p{N}])/giu;
const CWE_RE = /\bcwe[\s_-]*(?:id\s*)?#?\s*(\d{1,5})\b/giu;
const QUOTE_RE = /(^|[\s(:])["“'‘`]([^"”'’`\n]{1,200}?)["”'’`](?=$|[\s?.!,;:)])/gu;
const HASHNUM_RE = /#\s?(\d{1,10})\b/gu;
const WORD_RE = /[\p{L}\p{N}](?:[\p{L}\p{N}_+#'’-]*[\p{L}\p{N}+#])?|[?!,;:.()]/gu;

/**
 * The parts of a hyphenated severity compound (`high-severity`, `non-info`, `high-or-critical`,
 * `non-xss`), or undefined for any other word (`cross-site` stays whole). A `non-` prefix is always
 * split off, so the negation can be read.
 */
function splitCompound(word: string): string[] | undefined {
  if (!word.includes('-')) return undefined;
  const parts = word.split('-').filter(Boolean);
  if (parts.length < 2) return undefined;
  if (parts[0] === 'non') return parts.length === 2 ? parts : ['non', parts.slice(1).join('-')];
  if (!parts.some((p) => p in V.severities)) return undefined;
  return parts.every((p) => p in V.severities || V.compoundGlue.has(p)) ? parts : undefined;
}

interface Span {
  start: number;
  end: number;
  token: Omit<Token, 'start' | 'end'>;
}

/**
 * Splits a question into tokens. Report file names, `CWE-n`, quoted phrases and `#n` are single
 * tokens; other words are lower-cased and misspelled structure words corrected (see `correctWord`),
 * keeping the original spelling in `orig` so topics are searched as the operator wrote them.
 */
export function lex(text: string): Token[] {
  const spans: Span[] = [];
  const taken = (s: number, e: number) => spans.some((x) => s < x.end && e > x.start);
  // Quotes first: a file name or `#n` inside a quote is part of the quoted text.
  const special: [RegExp, (m: RegExpMatchArray) => Span['token']][] = [
    [QUOTE_RE, (m) => ({ orig: m[2], w: m[2].toLowerCase(), kind: 'quote', value: m[2].trim() })],
    [REPORT_RE, (m) => ({ orig: m[0], w: m[0].toLowerCase(), kind: 'report', value: m[0] })],
    [CWE_RE, (m) => ({ orig: m[0], w: 'cwe', kind: 'cwe', value: Number(m[1]) })],
    [HASHNUM_RE, (m) => ({ orig: m[0], w: m[0], kind: 'hashnum', value: Number(m[1]) })],
  ];
  for (const [re, token] of special)
    for (const m of text.matchAll(re)) {
      // A quote's span starts after the character before its opening mark.
      const start = m.index! + (re === QUOTE_RE ? m[1].length : 0);
      const end = m.index! + m[0].length;
      if (re !== QUOTE_RE && taken(start, end)) continue;
      spans.push({ start, end, token: token(m) });
    }
  spans.sort((a, b) => a.start - b.start);

  const tokens: Token[] = [];
  let pos = 0;
  const words = (from: number, to: number) => {
    for (const m of text.slice(from, to).matchAll(WORD_RE)) {
      const orig = m[0];
      const start = from + m.index!;
      const end = start + orig.length;
      let lower = orig.toLowerCase().replace(/’/g, "'");
      // A possessive ("which scan's got the most highs") is the noun; contractions ("what's") are vocabulary.
      if (lower.endsWith("'s") && !isKnown(lower)) lower = lower.slice(0, -2);
      const parts = splitCompound(lower);
      if (/^[?!,;:.()]$/.test(orig)) tokens.push({ orig, w: orig, kind: 'punct', start, end });
      else if (/^\d+$/.test(lower))
        tokens.push({ orig, w: lower, kind: 'num', value: Number(lower), start, end });
      else if (!parts) tokens.push({ orig, w: correctWord(lower, isKnown), kind: 'word', start, end });
      else
        for (let at = start, k = 0; k < parts.length; k++) {
          const from = text.toLowerCase().indexOf(parts[k], at);
          at = from + parts[k].length;
          tokens.push({ orig: text.slice(from, at), w: parts[k], kind: 'word', start: from, end: at });
        }
    }
  };
  for (const s of spans) {
    words(pos, s.start);
    tokens.push({ ...s.token, start: s.start, end: s.end });
    pos = s.end;
  }
  words(pos, text.length);
  return tokens;
}
