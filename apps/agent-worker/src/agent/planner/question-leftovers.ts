import type { Scan } from './question-scan';
import { contentRuns, isContent } from './question-topic';
import { hint } from './question-recognizers';
import type { ReportHint, Unapplied } from './question-plan';
import { V } from './vocabulary';

/**
 * What no recogniser took, as parts the planner cannot apply (unknown words with the preposition or
 * negation before them, negations of nothing it knows, a second report, CWE or quote), or as a
 * report named loosely ("in juice shop") when the question names no report otherwise.
 */
export function leftovers(s: Scan, reportNamed: boolean): { parts: Unapplied[]; hint?: ReportHint } {
  const parts: Unapplied[] = [];
  let hintOut: ReportHint | undefined;
  const num = (k: number) =>
    s.tokens[k]?.kind === 'num' || V.numbers[s.words[k]] !== undefined || s.words[k] === 'one';
  for (let i = 0; i < s.tokens.length; i++) {
    if (s.used[i]) continue;
    const [w, next] = [s.words[i], s.words[i + 1]];
    // "the first report": a report by position, which no tool orders by; "how many types of findings":
    // a number of kinds; "the least findings", "smallest report": a ranking from the bottom.
    const bottom = V.bottomRank.has(w);
    if (bottom || (w in V.ordinals && V.report.has(next)) || (V.kinds.has(w) && next === 'of')) {
      const span: [number, number] = [i, bottom ? i + 1 : i + 2];
      s.consume(span);
      parts.push({ text: s.spanText(span), reason: bottom ? 'order' : 'unknown' });
      continue;
    }
    // Comparisons no tool filter expresses: "more than one CWE", "at least 3 findings", "above 7", "2 CWEs".
    const comparison =
      (V.comparative.has(w) && next === 'than') ||
      (w === 'at' && /^(least|most)$/.test(next ?? '') && num(i + 2)) ||
      (V.bound.has(w) && num(i + 1)) ||
      (num(i) && w !== 'one' && (V.cwe.has(next) || V.countedProperty.has(next)));
    if (!comparison) continue;
    const j = s.stretchRight(i + 1, (_, x) => x < i + 5 && s.tokens[x].kind !== 'punct');
    // Include what is compared ("CVSS score above 9").
    const k = s.stretchLeft(i, (w, x) => isContent(s, x) && !V.harmless.has(w));
    s.consume([k, j]);
    parts.push({ text: s.spanText([k, j]), reason: 'combination' });
  }
  for (const [a, b] of contentRuns(s, false)) {
    if (s.used[a]) continue;
    const from = s.stretchLeft(a, /^(the|a|an|our|my|this|that)$/);
    const prep = from > 0 && !s.used[from - 1] ? s.words[from - 1] : undefined;
    const to = s.stretchRight(b, (w, k) => {
      const kind = s.tokens[k].kind;
      return kind === 'num' || (kind === 'word' && (isContent(s, k) || V.comparisonWord.has(w)));
    });
    const subjectOfHave = prep && V.doVerb.has(prep) && V.haveVerb.has(s.words[to]);
    if (!reportNamed && !hintOut && prep && (V.reportPreposition.has(prep) || subjectOfHave)) {
      hintOut = hint(s, [a, to], subjectOfHave ? [a, to] : [from - 1, to], true);
      continue;
    }
    const neg = s.negationBefore(from);
    const start = neg
      ? neg[0]
      : prep && (V.reportPreposition.has(prep) || V.partPreposition.has(prep))
        ? from - 1
        : a;
    s.consume([start, to]);
    parts.push({
      text: s.spanText([start, to]),
      reason: neg ? 'negation' : 'unknown',
      ...(start === a && !neg ? { topicLike: true } : {}),
    });
  }
  for (let i = 0; i < s.tokens.length; i++) {
    if (s.used[i]) continue;
    const t = s.tokens[i];
    const w = s.words[i];
    if (t.kind === 'report' || t.kind === 'cwe' || t.kind === 'quote') {
      parts.push({ text: t.orig, reason: 'combination' });
      continue;
    }
    if (t.kind !== 'word' || !(V.negation.has(w) || w.endsWith("n't"))) continue;
    const next = s.words[i + 1];
    // "… or not?": a negation that ends a clause negates nothing (punctuation is read by its token).
    const clauseEnd = /^[?.!,;:]$/.test(s.tokens[i + 1]?.w ?? '');
    if (!next || clauseEnd || V.harmlessAfterNegation.has(next) || (w === 'no' && i === 0)) continue;
    let j = i + 1;
    while (j < s.tokens.length && j < i + 5 && s.tokens[j].kind !== 'punct') j++;
    parts.push({ text: s.spanText([i, j]), reason: 'negation' });
  }
  return { parts, hint: hintOut };
}
