/**
 * What in an answer is a claim about the corpus: non-claims are masked, and honest restatements
 * (counting its own list, approximating, a ratio) are recognised.
 */
import type { NumberToken } from './number-tokens';
import { norm, type Family } from './provenance-sources';

/**
 * Numbers that state nothing about the corpus, masked whole: code, "TLS 1.2", durations, "In
 * 2026", "OWASP Top 10", "A03:2021", the "/10" of a score.
 */
const NOT_CLAIMS: readonly RegExp[] = [
  /```[^]*?(?:```|$)/g,
  /`[^`\n]+`/g,
  /(?<![\p{L}])(?:step|phase|schritt|шаг)\s+\d+\b/giu,
  /\b(?:(?:TLS|SSL|SSH)\s*v?|HTTP\/)\d(?:\.\d)?(?![\d%])/gi,
  /\b(?:last|past|next|previous|within|every|for)\s+\d+\s+(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b/gi,
  /\b(?:in|since|from|until|till|before|after|during|year)\s+(?:199\d|20\d\d|2100)\b(?![.,]\d|\s+(?:findings?|issues?|results?)\b)/gi,
  /\b(?:OWASP|CWE|SANS)\s+Top\s+\d+\b/gi,
  /\bA\d{2}:(?:19|20)\d\d\b/g,
  /(?<=\d)\s*(?:\/|out of)\s*10(?!\d|[.,]\d)/gi,
];

const blank = (m: string) => m.replace(/[^\n]/g, ' ');

/** `text` with every non-claim replaced by spaces (same length, so positions hold). */
export function maskNonClaims(text: string): string {
  let out = text;
  for (const re of NOT_CLAIMS) out = out.replace(re, blank);
  return maskRankColumn(out);
}

/** A table whose first column runs 1, 2, … n (`| # | Severity | Count |`): that column is a rank, not a count. */
function maskRankColumn(text: string): string {
  const lines = text.split('\n');
  const rank = /^(\s*\|\s*)(\d{1,3})(\.?\s*\|)/;
  for (let i = 0; i < lines.length; i++) {
    if (!/^\s*\|?\s*:?-{3,}/.test(lines[i])) continue;
    let n = 0;
    while (rank.exec(lines[i + 1 + n] ?? '')?.[2] === String(n + 1)) n++;
    const next = lines[i + 1 + n];
    if (n < 2 || (next !== undefined && /^\s*\|/.test(next))) continue;
    for (let j = i + 1; j <= i + n; j++)
      lines[j] = lines[j].replace(rank, (_, a: string, d: string, b: string) => a + blank(d) + b);
  }
  return lines.join('\n');
}

const end = (t: NumberToken) => t.start + t.text.length;

/** An answer counting its own list: N items right after N, or N of a returned list beside "top"… */
export function countsOwnList(t: NumberToken, answer: string, listLengths: readonly number[]): boolean {
  if (t.kind !== 'number' || t.percent || t.decimals || t.value < 2 || t.value > 50) return false;
  const before = answer.slice(Math.max(0, t.start - 24), t.start);
  const after = answer.slice(end(t), end(t) + 24);
  const beside =
    /\b(?:top|first|last|other|remaining|топ|первы\p{L}*|последни\p{L}*)\s+$/iu.test(before) ||
    /^\s+(?:most|largest|biggest|main|top|first|last|самы\p{L}*)\b/iu.test(after);
  if (beside && listLengths.some((n) => t.value <= n)) return true;
  const lineEnd = answer.indexOf('\n', end(t));
  const rest = answer.slice(end(t), lineEnd < 0 ? undefined : lineEnd);
  if (/:\s*$/.test(rest)) {
    const below = answer.slice(lineEnd + 1).split('\n');
    let items = 0;
    while (items < below.length && /^\s*(?:[-*+]|\d{1,3}[.)])\s+\S/.test(below[items])) items++;
    return items >= t.value;
  }
  // "… are A, B and C": the items after "are", ":" or a dash, with no number before it.
  const listed = /^([^.!?\d]*?)(?:\bare\b|\binclude\b|:|—|–)(.*)$/u.exec(rest.split(/[.!?](?=\s|$)/)[0]);
  return !!listed && listed[2].split(/,|;|\band\b|\bor\b|\sи\s/u).filter((x) => x.trim()).length >= t.value;
}

const APPROX =
  /(?<![\p{L}])(?:about|roughly|around|approximately|approx\.|nearly|almost|some|около|почти|примерно|etwa|rund|fast|environ|casi)\s*$|~\s*$/iu;
const ABOVE = /(?<![\p{L}])(?:over|more than|above|более|больше|über|plus de|más de)\s*$/iu;
const BELOW = /(?<![\p{L}])(?:under|less than|below|fewer than|менее|меньше|unter|moins de|menos de)\s*$/iu;

/**
 * "roughly 4,400", "over 4,000", "under 4,500": a round N (ending in 0) within 10 % of a supported
 * count, on the side "over"/"under" say.
 */
export function approximates(t: NumberToken, answer: string, counts: ReadonlySet<number>): boolean {
  if (t.kind !== 'number' || t.percent || t.decimals || t.value < 10 || t.value % 10 !== 0) return false;
  const before = answer.slice(Math.max(0, t.start - 20), t.start);
  const side = ABOVE.test(before) ? 1 : BELOW.test(before) ? -1 : APPROX.test(before) ? 0 : undefined;
  if (side === undefined) return false;
  for (const c of counts)
    if (Math.abs(c - t.value) <= 0.1 * c && Math.sign(c - t.value) * side >= 0) return true;
  return false;
}

/**
 * A ratio of two counts of one family (its values and wholes): "1 in 62" (whole / part, rounded),
 * "about 4 times", "3.9x" (one over another, to the decimals written). The "1" of "1 in N" too.
 */
export function statesRatio(t: NumberToken, answer: string, families: readonly Family[]): boolean {
  if (t.kind !== 'number' || t.percent) return false;
  if (t.value === 1 && /^\s+in\s+\d/.test(answer.slice(end(t), end(t) + 8))) return true;
  const oneIn = /\b1\s+in\s+$/.test(answer.slice(Math.max(0, t.start - 8), t.start));
  const times = /^\s*(?:x|×|times|раза?)(?![\p{L}])/iu.test(answer.slice(end(t), end(t) + 8));
  if (!oneIn && !times) return false;
  const scale = 10 ** t.decimals;
  for (const f of families) {
    const xs = [...f.wholes, ...f.values].filter((x) => x > 0);
    for (const a of xs)
      for (const b of xs)
        if (a > b && norm(Math.round((a / b) * scale) / scale) === norm(t.value)) return true;
  }
  return false;
}

/** What a count of groups counts: "five severity levels", "9 distinct CWEs", "7 reports". */
const GROUP_NOUN =
  /^(?:\*\*|__|\*|_)?\s+(?:[\p{L}-]+\s+){0,2}?(?:severit(?:y|ies)|levels?|groups?|CWEs?|CVEs?|weakness(?:es)?|reports?|verdicts?|categor(?:y|ies)|classes|kinds|types|statuses|values|keys|distinct|different|unique|отчёт\p{L}*|отчет\p{L}*|групп\p{L}*|уров\p{L}*|категори\p{L}*)(?![\p{L}])/iu;

/** A count of groups (`Sources.groupCounts`) stated as one: followed by what it counts. */
export function countsGroups(t: NumberToken, answer: string, groupCounts: ReadonlySet<number>): boolean {
  if (t.kind !== 'number' || t.percent || t.decimals || !groupCounts.has(norm(t.value))) return false;
  return GROUP_NOUN.test(answer.slice(end(t), end(t) + 40));
}
