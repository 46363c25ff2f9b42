import type { AnswerVerification } from '@corpus-chat/contracts';
import { approximates, countsGroups, countsOwnList, maskNonClaims, statesRatio } from './answer-claims';
import { isRecord } from '../model/tool-call-json';
import { numberTokens, type NumberToken } from './number-tokens';
import { collectSources, norm, parseJson, type Family, type Sources, type Tier } from './provenance-sources';

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
  /** The thread's earlier answers, which a follow-up may quote (never add up). */
  earlierAnswers?: readonly string[];
}

/**
 * Checks every number of `answer` against the turn's sources; returns how many it `checked` and
 * the `unsupported` ones as written, once, in order. Pure. A number is supported when it is:
 * - a count of a tool result or exact arithmetic over one (part sums, whole − parts, sums over
 *   calls, totals subtracted), or quoted from returned text, the operator's message or an answer;
 * - a share, rounded as written, of such numbers, or of two supported numbers in the same sentence;
 * - a page fact (page size, row id, argument) or group count only beside a result's total, or a
 *   group count followed by what it counts ("5 severity levels");
 * - an identifier written in a source or made of source numbers;
 * - the answer counting its own list, approximating, a ratio, or "… and N more".
 * It cannot tell which group a number is said of: it must be supported, not the one meant.
 */
export function verifyNumbers(input: ProvenanceInput): AnswerVerification {
  const answer = maskNonClaims(input.answer);
  const tokens = numberTokens(answer);
  if (!tokens.length) return { checked: 0, unsupported: [] };
  const s = collectSources(input);
  const statesTotal = tokens.some((t) => t.kind === 'number' && !t.percent && s.totals.has(norm(t.value)));
  const tier = statesTotal ? s.weak : s.strong;
  const unsupported: string[] = [];
  for (const t of tokens) {
    if (
      isSupported(t, tier, s) ||
      writtenAsId(t, answer, s) ||
      countsGroups(t, answer, s.groupCounts) ||
      sentenceShare(t, tokens, answer, tier, s) ||
      countsOwnList(t, answer, s.listLengths) ||
      approximates(t, answer, s.strong.written) ||
      statesRatio(t, answer, tier.families) ||
      moreThanListed(t, answer, tier, s)
    )
      continue;
    if (!unsupported.includes(t.text)) unsupported.push(t.text);
  }
  return { checked: tokens.length, unsupported };
}

/** "#1004", "id 1004", "finding 1004", "CWE 79": a row id or an identifier's number, written as one. */
function writtenAsId(t: NumberToken, answer: string, s: Sources): boolean {
  if (t.kind !== 'number' || t.percent || t.decimals) return false;
  const before = answer.slice(Math.max(0, t.start - 12), t.start);
  return /(?:#|\b(?:id|ids|finding|findings|cwe|cve|№)[\s:#-]*)$/i.test(before) && s.ids.has(norm(t.value));
}

/**
 * A share of two supported numbers stated in the same sentence: "(120 of 397)" beside "30.2%".
 * The sentence ends at ".", "!" or "?" before a space, or at a line break.
 */
function sentenceShare(
  t: NumberToken,
  tokens: readonly NumberToken[],
  answer: string,
  tier: Tier,
  s: Sources,
): boolean {
  if (t.kind !== 'number' || (!t.percent && !t.decimals)) return false;
  const ends = ['\n', '. ', '! ', '? '];
  const from = Math.max(...ends.map((x) => answer.lastIndexOf(x, t.start)));
  const stops = ends.map((x) => answer.indexOf(x, t.start)).filter((i) => i >= 0);
  const to = stops.length ? Math.min(...stops) : answer.length;
  const near = tokens
    .filter(
      (u): u is Extract<NumberToken, { kind: 'number' }> =>
        u !== t && u.kind === 'number' && !u.percent && u.start > from && u.start < to,
    )
    .filter((u) => isSupported(u, tier, s))
    .map((u) => u.value)
    .filter((v) => v > 0);
  if (near.length < 2) return false;
  return shareSupported(t.value, t.decimals, t.percent ? 100 : 1, [
    { values: near, wholes: near, parts: [...near].sort((a, b) => a - b) },
  ]);
}

/**
 * "… and 13 more" after a list of 20 items states that there are 33: supported when that sum is.
 * The items are the list lines just above the line of the number.
 */
function moreThanListed(t: NumberToken, answer: string, tier: Tier, s: Sources): boolean {
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
  return (
    listed > 0 && (tier.written.has(norm(t.value + listed)) || s.groupCounts.has(norm(t.value + listed)))
  );
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
      'Answer again using only numbers from these results, the question, or exact sums, differences and percentages of them ' +
        '(a page size such as `returned` or `limit`, or a row id, is not a count of findings); ' +
        'if a number you need is not there, call a tool for it or say that you do not know it.',
    );
  }
  return lines.join('\n');
}

function isSupported(t: NumberToken, tier: Tier, s: Sources): boolean {
  if (t.kind === 'identifier') {
    if (containsLiteral(s.text, t.text.toLowerCase())) return true;
    return t.parts.every((p) =>
      /^\d+$/.test(p) ? tier.written.has(Number(p)) || s.ids.has(Number(p)) : containsLiteral(s.text, p),
    );
  }
  if (t.cut && containsLiteral(s.text, t.text, true)) return true;
  if (tier.written.has(norm(t.value))) return true;
  if (t.dotted !== undefined && tier.written.has(t.dotted)) return true;
  if (
    (t.percent || t.decimals > 0) &&
    shareSupported(t.value, t.decimals, t.percent ? 100 : 1, tier.families)
  )
    return true;
  return !!t.spaced && t.spaced.every((n) => tier.written.has(norm(n)));
}

/**
 * Whether some part/whole × scale of one family, rounded or truncated to `decimals` places, is
 * `written`. For each whole the parts lie in one interval, found by binary search.
 */
function shareSupported(
  written: number,
  decimals: number,
  scale: number,
  families: readonly Family[],
): boolean {
  const unit = 10 ** -decimals;
  const target = norm(written);
  for (const f of families) {
    for (const b of f.wholes) {
      if (b <= 0) continue;
      const lo = ((written - unit / 2) * b) / scale - 1e-9;
      const hi = ((written + unit) * b) / scale;
      for (let i = lowerBound(f.parts, lo); i < f.parts.length && f.parts[i] < hi; i++) {
        const r = (f.parts[i] / b) * scale;
        if (round(r, decimals) === target || trunc(r, decimals) === target) return true;
      }
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
  const o = parseJson(content);
  if (isRecord(o)) {
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
