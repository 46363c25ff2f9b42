/** The question's topic ("how many findings relate to *SQL injection*?") and its content words. */
import type { Scan } from './question-scan';
import type { Unapplied } from './question-plan';
import { V, union } from './vocabulary';

export const MARKER_WORDS = new Set(V.topicMarkers.flat());

/** Whether token `i` is an unused content word: none of the planner's vocabulary or scaffolding. */
export function isContent(s: Scan, i: number): boolean {
  const t = s.tokens[i];
  return t?.kind === 'word' && !s.used[i] && !STRUCTURE.has(t.w) && !t.w.endsWith("n't");
}
const STRUCTURE = union(
  ...[V.stop, V.finding, V.report, V.cwe, V.count, V.top, V.breakdown, V.list, V.overview, V.write],
  ...[V.reference, V.ordinals, V.groupBy, V.negation],
);

/** Topic markers, those that negate the topic after them first; a weak one takes only a plausible topic. */
const MARKERS = [...V.negativeTopicMarkers, ...V.topicMarkers];

/** A topic, possibly negated ("not about SQL injection", "non-XSS", "excluding cookies"). */
interface Topic {
  text: string;
  negated: boolean;
  /** Words that make the topic something the text search cannot express (a comparison, a second topic). */
  unapplicable?: Unapplied;
}

/**
 * The topic as the operator wrote it: quoted text, the words after a topic marker ("relate to X"),
 * else those before a finding noun or after "how many"/"most"/a negation ("not about X" negates it).
 */
export function findTopic(s: Scan): Topic | undefined {
  const quote = s.tokens.findIndex((t, i) => t.kind === 'quote' && !s.used[i]);
  if (quote >= 0) return { text: String(s.tokens[quote].value), negated: s.claim([quote, quote + 1]) };
  for (let i = 0; i < s.words.length; i++) {
    for (const marker of MARKERS) {
      if (!s.freeSeq(i, marker)) continue;
      const negative = V.negativeTopicMarkers.includes(marker);
      const range = topicRange(s, i + marker.length);
      if (!range || (!negative && V.weakMarker.has(marker[0]) && !plausibleWeakTopic(s, range))) continue;
      const negated = negative || !!s.takeNegation(i);
      s.consume([i, range[1]]);
      return withLimits(s, range, negated);
    }
  }
  // No marker: content words right before a finding noun ("XSS findings", "high SQL injection bugs"),
  // after "how many" / "most" at the end of the question ("which report has the most XSS?"), or
  // after a negation ("findings that are not XSS").
  for (const [a, b] of contentRuns(s)) {
    const next = s.tokens[b]?.kind === 'punct' ? s.tokens[b].orig : s.words[b];
    const prev = s.words[a - 1];
    const neg = s.negationBefore(a);
    const beforeNoun = next && V.finding.has(next) && next !== 'one' && next !== 'ones';
    const afterCount =
      prev && /^(many|most|much|count|about)$/.test(prev) && (!next || next === '?' || V.finding.has(next));
    const afterNegation = neg && (!next || /^[?.!,]$/.test(next) || V.finding.has(next));
    // "crit sqli count", "sqli count": a run right before a count word, or after a severity word at the end.
    const beforeCount = !!next && V.count.has(next) && (a === 0 || !!V.severities[prev ?? '']);
    const afterSeverity = !!V.severities[prev ?? ''] && s.used[a - 1] && (!next || /^[?.!]$/.test(next));
    // "unique findings", "distinct issues": about counting, not a topic (left for the leftover check).
    if (s.words.slice(a, b).every((w) => V.countingAdjective.has(w) || V.genericModifier.has(w))) continue;
    if (beforeNoun || afterCount || afterNegation || beforeCount || afterSeverity) {
      return withLimits(s, [a, b], s.claim([a, b]));
    }
  }
  return undefined;
}

/** A topic whose words hold a comparison or a second topic is not something the text search can count. */
function withLimits(s: Scan, range: [number, number], negated: boolean): Topic {
  const text = s.spanText(range);
  const ws = s.words.slice(range[0], range[1]);
  const limited = ws.some((w, k) => V.comparisonWord.has(w) || (k > 0 && V.topicJoin.has(w)));
  return limited ? { text, negated, unapplicable: { text, reason: 'combination' } } : { text, negated };
}

/** [from, to) of the topic after a marker, trimmed; undefined when nothing topical follows. */
function topicRange(s: Scan, from: number): [number, number] | undefined {
  const wordy = (k: number) => /^(word|num)$/.test(s.tokens[k]?.kind ?? '');
  // A stop word ends the topic, as does a severity before "severity" or a finding noun.
  const ends = (w: string, k: number) =>
    V.topicStop.has(w) || (!!V.severities[w] && V.afterSeverity.has(s.words[k + 1]));
  let a = from;
  let b = wordy(from) ? s.stretchRight(from + 1, (w, k) => wordy(k) && !ends(w, k)) : from;
  const trimmable = (k: number, w = s.words[k]) =>
    V.topicTrim.has(w) || V.finding.has(w) || (w in V.severities && w !== 'none') || s.used[k];
  while (a < b && trimmable(a)) a++;
  while (b > a && trimmable(b - 1)) b--;
  if (a >= b) return undefined;
  if (V.notATopic.has(s.words[a]) && b - a === 1) return undefined;
  if (s.words.slice(a, b).every((w) => V.stop.has(w) || V.reference.has(w))) return undefined;
  return [a, b];
}

/** A weak marker ("for", "with", "on") takes a topic only when it is not scaffolding itself. */
function plausibleWeakTopic(s: Scan, [a, b]: [number, number]): boolean {
  const ws = s.words.slice(a, b);
  if (ws.some((w) => V.groupBy[w] && (V.report.has(w) || w === 'severity' || w === 'verdict'))) return false;
  if (ws.some((w) => V.count.has(w) || V.top.has(w) || w === 'number')) return false;
  return !ws.every((w) => V.stop.has(w) || /^\d+$/.test(w));
}

/** Runs [a, b) of unused content words, without filler and topic markers unless `includeHarmless`. */
export function contentRuns(s: Scan, includeHarmless = true): [number, number][] {
  const runs: [number, number][] = [];
  s.words.forEach((w, i) => {
    if (!isContent(s, i) || (!includeHarmless && (V.harmless.has(w) || MARKER_WORDS.has(w)))) return;
    if (runs.at(-1)?.[1] === i) runs.at(-1)![1]++;
    else runs.push([i, i + 1]);
  });
  return runs;
}
