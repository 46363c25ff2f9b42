/** The recognisers of `parseQuestion`, each consuming the tokens it reads; `leftovers` names the rest. */
import type { ComputedScope, GroupByKey, TriageStatus, VerdictStatus } from '@corpus-chat/contracts';
import type { Range, Scan } from './question-scan';
import { MARKER_WORDS, contentRuns, isContent } from './question-topic';
import type { ReportHint, Unapplied } from './question-plan';
import { V, union } from './vocabulary';

/** Words that may stand inside a time phrase ("in the last 7 days", "imported over the past month"). */
const TIME_GLUE = union(V.timeGlue, V.arrival, V.numbers);

/** Time phrases ("imported last week", "since March", "in 2023"): no tool filters by date. */
export function findTimePhrases(s: Scan): Unapplied[] {
  const out: Unapplied[] = [];
  const isAnchor = (i: number) => {
    const t = s.tokens[i];
    if (!t || s.used[i]) return false;
    if (t.kind === 'num') return (t.value as number) >= 1990 && (t.value as number) <= 2100;
    // A date such as 2024-03-01 is one word ("03/01" is two numbers: the lexer never keeps a "/").
    return t.kind === 'word' && (V.time.has(t.w) || /^\d{4}-\d{2}(-\d{2})?$/.test(t.w));
  };
  for (let i = 0; i < s.tokens.length; i++) {
    if (!isAnchor(i)) continue;
    const glue = (k: number) =>
      !s.used[k] && (TIME_GLUE.has(s.words[k]) || s.tokens[k].kind === 'num' || isAnchor(k));
    let a = s.stretchLeft(i, (_, k) => glue(k));
    let b = i + 1;
    while (b < s.tokens.length && (isAnchor(b) || (glue(b) && isAnchor(b + 1)) || s.words[b] === 'ago')) b++;
    // Trim glue that is ordinary scaffolding at the edges ("the", "of").
    while (a < i && /^(the|a|an|of|and|each|per|every)$/.test(s.words[a])) a++;
    s.consume([a, b]);
    out.push({ text: s.spanText([a, b]), reason: 'time' });
    i = b - 1;
  }
  return out;
}

/** "no CWE", "without a verdict", "have a CWE id": findings with or without any CWE id / verdict. */
export function findPresence(s: Scan): ComputedScope['has'] | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const w = s.words[i];
    if (s.used[i] || s.tokens[i].kind !== 'word') continue;
    const key = V.cwe.has(w) ? 'cwe' : w === 'verdict' || w === 'verdicts' ? 'verdict' : undefined;
    if (!key) continue;
    const k = s.stretchLeft(i, V.presenceLead) - 1;
    const p = s.words[k];
    const end = s.stretchRight(i + 1, V.presenceTail);
    if (!p || s.used[k]) continue;
    if (V.absence.has(p)) {
      const neg = (s.words[k - 1] ?? '').endsWith("n't") || s.words[k - 1] === 'not' ? k - 1 : k;
      s.consume([neg, end]);
      // "not without a CWE" would be a double negation: read it as "with".
      return { key, present: neg !== k };
    }
    if (V.possession.has(p)) return { key, present: !s.claim([k, end]) };
  }
  return undefined;
}

/**
 * Triage status ("false positives", "risk accepted", "triage status fixed") and retest verdict
 * ("fixed", "still open", "not fixed", "unfixed"), each possibly negated. "fixed" and "open" are a
 * verdict when the question names "verdict"/"retest", a status when it names "status"/"triage",
 * else "open" is the status and "fixed" the verdict.
 */
export function findStates(s: Scan) {
  const [verdictNamed, statusNamed] = [s.hasAny(V.verdictNoun), s.hasAny(V.statusNoun)];
  let status: { status: TriageStatus; negated: boolean } | undefined;
  let verdict: { verdict: VerdictStatus; negated: boolean } | undefined;
  for (let i = 0; i < s.words.length; i++) {
    if (s.used[i] || s.tokens[i].kind !== 'word') continue;
    const [w, prev, next] = [s.words[i], s.words[i - 1], s.words[i + 1] ?? ''];
    const openFinding = w === 'open' && i > 0 && (V.finding.has(next) || V.stateVerb.has(prev));
    if (!status) {
      const pair = V.statuses[`${w} ${next}`];
      let named = pair ?? V.statuses[w];
      if (w === 'accepted' && !verdictNamed) named = 'risk_accepted';
      else if ((w === 'open' || w === 'fixed') && !verdictNamed && prev !== 'still')
        if (statusNamed || openFinding) named = w;
      if (named) {
        const a = s.stretchLeft(i, V.statusLead);
        const negated = s.claim([a, s.stretchRight(pair ? i + 2 : i + 1, /^(status|statuses|triage)$/)]);
        // "triage status" elsewhere in the question ("findings whose triage status is open") is read too.
        s.words.forEach((x, k) => {
          if (V.statusNoun.has(x) && !s.used[k] && !/^(by|per|each|every)$/.test(s.words[k - 1] ?? ''))
            s.consume([k, k + 1]);
        });
        status = { status: named, negated };
        continue;
      }
    }
    if (verdict) continue;
    const still = w === 'open' && (prev === 'still' || verdictNamed);
    // "open findings", "unfixed": not marked fixed; "still_open" as one word is never negated.
    const notFixed = (openFinding && !still) || V.unfixed.has(w);
    const named = still ? 'still_open' : notFixed ? 'fixed' : V.verdicts[w];
    if (!named) continue;
    const a = still && prev === 'still' ? i - 1 : i;
    const neg = V.unfixed.has(w) || V.verdicts[w] === 'still_open' ? undefined : s.takeNegation(a);
    s.consume([a, i + 1]);
    verdict = { verdict: named, negated: notFixed ? !neg : !!neg };
  }
  return [status, verdict];
}

/** The explicit number in "top 3", "top three", "3 reports", "five CWEs". */
export function findTopN(s: Scan): number | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const t = s.tokens[i];
    const n = t.kind === 'num' ? (t.value as number) : V.numbers[s.words[i]];
    if (n === undefined || n < 1 || n > 100 || s.used[i]) continue;
    const [prev, next] = [s.words[i - 1], s.words[i + 1]];
    const ranked =
      prev === 'top' || prev === 'first' || V.report.has(next) || V.cwe.has(next) || next === 'most';
    // "have 2 CWEs", "more than 3 CWEs" is a condition on findings, not "top 2".
    if (ranked && !V.topNBlocker.has(prev)) {
      s.used[i] = true;
      return n;
    }
  }
  return undefined;
}

/** A report named by words next to "report"/"scan"/"file" ("the juice shop report", "report named X"). */
export function findReportHint(s: Scan): ReportHint | undefined {
  for (let r = 0; r < s.words.length; r++) {
    if (!V.report.has(s.words[r]) || s.used[r]) continue;
    const a = s.stretchLeft(r, (_, k) => isNameLike(s, k));
    if (a < r) return hint(s, [a, r], [a, r + 1], false);
    let b = r + 1;
    // "reports other than juice shop", "every report except fortify".
    const negation = V.negativeTopicMarkers.find((m) => s.freeSeq(b, m));
    if (negation) b += negation.length;
    b = s.stretchRight(b, V.reportNameGlue);
    const e = s.stretchRight(b, (_, k) => isNameLike(s, k));
    if (e > b && (b > r + 1 || e === s.words.length || s.tokens[e].kind === 'punct')) {
      // "every report except X": the quantifier belongs to the exclusion, not to a breakdown.
      const q = negation ? s.stretchLeft(r, /^(every|all|each|any|the|other)$/) : r;
      const found = hint(s, [b, e], [q, e], false);
      return found && negation ? { ...found, negated: !found.negated } : found;
    }
  }
  return undefined;
}

/** A token that can be part of a report's name: a content word, or a number/version glued to one. */
function isNameLike(s: Scan, i: number): boolean {
  const t = s.tokens[i];
  const word = () =>
    isContent(s, i) && !MARKER_WORDS.has(t.w) && !(t.w in V.severities) && !V.harmless.has(t.w);
  return !!t && !s.used[i] && (t.kind === 'num' || word());
}

/** A report hint named by tokens `name`, consuming `whole` and the negation before it. */
export function hint(s: Scan, name: Range, whole: Range, loose: boolean): ReportHint | undefined {
  if (!s.tokens.slice(name[0], name[1]).some((t) => t.kind === 'word')) return undefined;
  return { text: s.spanText(name), negated: s.claim(whole), loose };
}

/** A report format named as such ("the Trivy reports", "not from the ZAP scans"), never a file name. */
export function findFormat(s: Scan) {
  for (let i = 0; i < s.words.length; i++) {
    const format = V.formats[s.words[i]];
    if (!format || s.used[i] || s.tokens[i].kind !== 'word') continue;
    const end = format === 'burp' && s.words[i + 1] === 'suite' ? i + 2 : i + 1;
    // "the zap report" names one report (resolved by file name); "the zap reports" is the format.
    if (/^(report|scan|file|export)$/.test(s.words[end] ?? '')) continue;
    // "the alpine trivy sarif": format words run together with a file type name a file.
    const fileType = (w = '') => !!V.formats[w] || /^(json|jsonl|xml|html)$/.test(w);
    if (fileType(s.words[end]) || fileType(s.words[i - 1])) continue;
    return { format, negated: s.claim([i, end]) };
  }
  return undefined;
}

/** "including archived reports" ("not archived" is the default; no filter selects "only archived"). */
export function findArchived(s: Scan): 'include' | 'only' | undefined {
  const i = s.words.findIndex((w, k) => (w === 'archived' || w === 'archive') && !s.used[k]);
  if (i < 0) return undefined;
  const a = s.stretchLeft(i, V.archivedLead);
  const b = s.stretchRight(i + 1, (w) => V.report.has(w) || /^(ones|too|as|well|included)$/.test(w));
  const neg = s.negationBefore(i);
  s.consume([neg ? neg[0] : a, b]);
  if (neg) return undefined;
  const only = s.words[b] === 'only' ? b : V.only.has(s.words[a - 1]) ? a - 1 : -1;
  if (only < 0) return 'include';
  s.consume([only, only + 1]);
  return 'only';
}

/** A request to change the corpus ("delete the criticals"): refused, the tools are read-only. */
export function isWriteRequest(s: Scan): boolean {
  return s.words.some((w, i) => {
    if (!V.write.has(w) || s.used[i]) return false;
    const before = s.words.slice(0, i).filter((x) => !V.requestFiller.has(x));
    const object = s.words
      .slice(i + 1, i + 5)
      .some((x) => V.finding.has(x) || V.report.has(x) || V.writeObject.has(x) || x.startsWith('⟨'));
    return before.length === 0 || object;
  });
}

/** Grouping asked for: "by severity", "per report", "severity breakdown", "distribution of CWEs". */
export function findGroupBy(s: Scan): GroupByKey | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const w = s.words[i];
    // "counting every format", "including all reports": everything is counted, nothing is grouped.
    if ((w === 'each' || w === 'every') && V.countingAll.has(s.words[i - 1])) {
      s.consume([i - 1, i + 2]);
      continue;
    }
    if (/^(by|per|each|every)$/.test(w) || (w === 'across' && s.words[i + 1] !== 'the')) {
      const at = s.words[i + 1] === 'the' || s.words[i + 1] === 'their' ? i + 2 : i + 1;
      const key = V.groupBy[s.words[at]];
      if (key && !s.used[at]) {
        // "by triage status": both words name the one grouping.
        s.consume([i, at + (key === 'status' && s.words[at + 1] === 'status' ? 2 : 1)]);
        return key;
      }
    }
  }
  if (s.hasAnyUnused(V.breakdown) || s.has('breakdown', 'distribution')) {
    const i = s.words.findIndex((w, k) => V.groupBy[w] && !V.finding.has(w) && !s.used[k]);
    return i >= 0 ? V.groupBy[s.words[i]] : 'severity';
  }
  return undefined;
}

/**
 * The `edited` filter ("which findings were edited?", "did operators re-rate …"): `severity` when the
 * question names it or says "re-rated", else `any`. A base form needs an auxiliary ("did … change").
 */
export function findEdited(s: Scan) {
  const W = s.words;
  const filler = (w = '') => V.editGlue.has(w) || V.auxiliary.has(w) || V.actor.has(w);
  for (let i = 0; i < W.length; i++) {
    const rerate = V.rerate.has(W[i]);
    const past = V.editPast.has(W[i]);
    const base = V.editBase.has(W[i]) && W.slice(Math.max(0, i - 3), i).some((w) => V.auxiliary.has(w));
    if (!rerate && !past && !base) continue;
    // The field right after ("change the severity of") or right before ("whose severity was changed").
    const field = [i + 1, i + 2, i - 1, i - 2, i - 3].find((k) => V.severityField.has(W[k]));
    if (field === undefined && !past && !rerate) continue;
    const span = field === undefined ? [i] : [i, field];
    const [from, to] = [Math.min(...span), Math.max(...span)];
    for (let k = from; k <= to; k++) if (filler(W[k])) span.push(k);
    if (W[to + 1] === 'of' && V.severityField.has(W[to])) span.push(to + 1);
    if (W[to + 1] === 'by' && V.actor.has(W[to + 2])) span.push(to + 1, to + 2);
    // "did operators change", "have analysts re-rated": the auxiliary and the actor before the verb.
    for (let k = from - 1; k >= 0 && k >= from - 3 && filler(W[k]); k--) span.push(k);
    for (const k of span) s.consume([k, k + 1]);
    return field !== undefined || rerate ? 'severity' : 'any';
  }
  return undefined;
}

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
