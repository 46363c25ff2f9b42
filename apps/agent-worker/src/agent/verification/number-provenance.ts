import type { AnswerVerification } from '@corpus-chat/contracts';
import { numberTokens, type NumberToken } from './number-tokens';
import { collectSources, norm, parseJson, type Sources } from './provenance-sources';

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
  /**
   * The thread's earlier answers: a follow-up may repeat what they stated ("of the 184 SQL
   * injection findings, 6 are high"), whose tool results belong to earlier turns. Quoted, never
   * added up.
   */
  earlierAnswers?: readonly string[];
}

/**
 * Checks every number of `answer` against the turn's sources: each number in a tool result's
 * content or a call's arguments (counts, ids, limits, CVSS scores, numbers inside returned text),
 * each number of the operator's message, and exact arithmetic over the tool results' counts: a + b,
 * |a − b|, the sum of a count over a returned list (or over any part of a list of at most
 * SUBSET_MAX (6) items, like the five severities) or over several calls, how many items a list
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
  for (const t of tokens) {
    if (isSupported(t, sources) || moreThanListed(t, input.answer, sources)) continue;
    if (!unsupported.includes(t.text)) unsupported.push(t.text);
  }
  return { checked: tokens.length, unsupported };
}

/**
 * "… and 13 more" after a list of 20 items states that there are 33: supported when that sum is.
 * The items are the list lines just above the line of the number.
 */
function moreThanListed(t: NumberToken, answer: string, s: Sources): boolean {
  if (t.kind !== 'number' || t.percent || t.decimals) return false;
  if (!/\band\s+$/i.test(answer.slice(Math.max(0, t.start - 8), t.start))) return false;
  if (!/^\s+more\b/i.test(answer.slice(t.start + t.text.length, t.start + t.text.length + 8))) return false;
  const above = answer
    .slice(0, answer.lastIndexOf('\n', t.start) + 1)
    .split('\n')
    .slice(0, -1);
  let listed = 0;
  while (listed < above.length && /^\s*(?:[-*+]|\d{1,3}[.)])\s+\S/.test(above[above.length - 1 - listed]))
    listed++;
  return listed > 0 && (s.written.has(norm(t.value + listed)) || numberSupported(t.value + listed, s));
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
  if (!evidence.length) {
    lines.push(
      'You called no tool in this turn, so no number about the corpus is supported: call a tool for each number you state, ' +
        'or answer without it.',
    );
  } else {
    lines.push('The tool results of this turn:');
    for (const e of evidence) lines.push(`- ${e.name}(${compactArgs(e.args)}): ${totalOf(e.content)}`);
    lines.push(
      'Answer again using only numbers from these results, the question, or exact sums, differences and percentages of them; ' +
        'if a number you need is not there, call a tool for it or say that you do not know it.',
    );
  }
  return lines.join('\n');
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
    if (typeof o['returned'] === 'number') parts.push(`returned ${o['returned']}`);
    const findings = o['findings'] as Record<string, unknown> | undefined;
    if (findings && typeof findings['total'] === 'number')
      parts.push(`${findings['total']} findings in total`);
    if (parts.length) return parts.join(', ');
  }
  return 'no total (see the result)';
}
