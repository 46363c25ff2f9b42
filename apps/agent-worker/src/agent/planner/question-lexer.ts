import { REPORT_EXTENSION } from './report-names';
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

/** A report's file name (`dd__flawfinder.sarif`), at most 255 characters so the search stays linear. */
const REPORT_RE = new RegExp(
  String.raw`[\p{L}\p{N}_][\p{L}\p{N}_.+-]{0,254}${REPORT_EXTENSION}(?![\p{L}\p{N}])`,
  'giu',
);
const CWE_RE = /\bcwe[\s_-]*(?:id\s*)?#?\s*(\d{1,5})\b/giu;
const QUOTE_RE = /(?<=^|[\s(:])["“'‘`]([^"”'’`\n]{1,200}?)["”'’`](?=$|[\s?.!,;:)])/gu;
const HASHNUM_RE = /#\s?(\d{1,10})\b/gu;
const WORD_RE = /[\p{L}\p{N}](?:[\p{L}\p{N}_+#'’-]*[\p{L}\p{N}+#])?|[?!,;:.()]/gu;

/**
 * The parts of a hyphenated severity compound (`high-severity`, `non-info`, `high-or-critical`,
 * `non-xss`), or undefined for any other word (`cross-site` stays whole). A `non-` prefix is always
 * split off, so the negation can be read.
 */
function splitCompound(word: string): string[] | undefined {
  const parts = word.split('-').filter(Boolean);
  if (parts.length < 2) return undefined;
  if (parts[0] === 'non') return ['non', parts.slice(1).join('-')];
  const severity = parts.some((p) => p in V.severities);
  return severity && parts.every((p) => p in V.severities || V.compoundGlue.has(p)) ? parts : undefined;
}

/**
 * Splits a question into tokens. Report file names, `CWE-n`, quoted phrases and `#n` are single
 * tokens; other words are lower-cased and misspelled structure words corrected (see `correctWord`),
 * keeping the original spelling in `orig` so topics are searched as the operator wrote them.
 */
export function lex(text: string): Token[] {
  const special: [RegExp, (m: RegExpMatchArray) => Partial<Token> & Pick<Token, 'w' | 'kind'>][] = [
    // Quotes first: a file name or `#n` inside a quote is part of the quoted text.
    [QUOTE_RE, (m) => ({ orig: m[1], w: m[1].toLowerCase(), kind: 'quote', value: m[1].trim() })],
    [REPORT_RE, (m) => ({ w: m[0].toLowerCase(), kind: 'report', value: m[0] })],
    [CWE_RE, (m) => ({ w: 'cwe', kind: 'cwe', value: Number(m[1]) })],
    [HASHNUM_RE, (m) => ({ w: m[0], kind: 'hashnum', value: Number(m[1]) })],
  ];
  const spans: Token[] = [];
  for (const [re, token] of special)
    for (const m of text.matchAll(re)) {
      const [start, end] = [m.index!, m.index! + m[0].length];
      if (spans.every((x) => start >= x.end || end <= x.start))
        spans.push({ orig: m[0], ...token(m), start, end });
    }
  const tokens: Token[] = [];
  let pos = 0;
  for (const span of [...spans.sort((a, b) => a.start - b.start), undefined]) {
    for (const m of text.slice(pos, span?.start).matchAll(WORD_RE))
      tokens.push(...word(text, m[0], pos + m.index!));
    if (span) tokens.push(span);
    pos = span?.end ?? 0;
  }
  return tokens;
}

/** The tokens of the word `orig` at `start`: punctuation, a number, a word or a compound's parts. */
function word(text: string, orig: string, start: number): Token[] {
  const end = start + orig.length;
  let lower = orig.toLowerCase().replace(/’/g, "'");
  // A possessive ("which scan's got the most highs") is the noun; contractions ("what's") are vocabulary.
  if (lower.endsWith("'s") && !KNOWN.has(lower)) lower = lower.slice(0, -2);
  if (/^[?!,;:.()]$/.test(orig)) return [{ orig, w: orig, kind: 'punct', start, end }];
  if (/^\d+$/.test(lower)) return [{ orig, w: lower, kind: 'num', value: Number(lower), start, end }];
  const parts = splitCompound(lower);
  if (!parts) return [{ orig, w: correctWord(lower, KNOWN), kind: 'word', start, end }];
  let at = start;
  return parts.map((part) => {
    const from = text.toLowerCase().indexOf(part, at);
    at = from + part.length;
    return { orig: text.slice(from, at), w: part, kind: 'word', start: from, end: at };
  });
}
