import { SEVERITIES, type ComputedScope, type FindingFilter, type GroupByKey, type VerdictStatus } from '@corpus-chat/contracts';
import { lex } from './question-lexer';
import { consume, negationBefore, scan, spanText, type Scan } from './question-scan';
import { findSeverityExpression } from './severity-expression';
import {
  ARRIVAL_VERBS, BREAKDOWN_WORDS, COUNT_WORDS, CWE_NOUNS, FINDING_NOUNS, GROUP_WORDS, HARMLESS_WORDS, LIST_WORDS, NEGATION_WORDS, NUMBER_WORDS, ORDINALS,
  OVERVIEW_WORDS, REFERENCE_WORDS, REPORT_NOUNS, SEVERITY_WORDS, STOPWORDS, TIME_GLUE, TIME_WORDS, TOP_WORDS, VERDICT_WORDS, WRITE_VERBS,
} from './vocabulary';

/** A part of the question the planner read but cannot apply to a count. */
export interface Unapplied {
  /** The operator's words. */
  text: string;
  /**
   * `time`: a date or period (no tool filters by date); `negation`: a "not"/"without" whose object
   * the planner did not recognise; `combination`: parts it understands one by one but cannot combine
   * into one exact count; `order`: a ranking from the bottom ("fewest"), which the tools do not
   * give exactly (reports without any match are not in a grouped count); `unknown`: words it did
   * not understand.
   */
  reason: 'time' | 'negation' | 'combination' | 'order' | 'unknown';
  /** Unknown words that could be a topic to search for ("how many findings does jQuery have?"). */
  topicLike?: boolean;
}

/** A report named by part of its file name ("the juice shop report"); resolved against `list_all_reports`. */
export interface ReportHint {
  /** The operator's words naming the report. */
  text: string;
  /** "not in the fortify report": the report's findings are subtracted. */
  negated: boolean;
  /** Read from leftover words after "in"/"from" rather than next to the word "report". */
  loose: boolean;
}

/** What a count is over: the tool filter plus what the planner computes from several exact counts. */
export interface PlannedScope {
  filter: FindingFilter;
  scope?: ComputedScope;
}

/** The parts shared by every plan that counts findings. */
interface Counting extends PlannedScope {
  followUp: boolean;
  /** For a follow-up: the previous answer's scope, and the parts this question named itself. */
  previous?: PlannedScope;
  asked?: PlannedScope;
  reportHint?: ReportHint;
}

/** What the planner decided a question asks. */
export type PlannedQuestion =
  | { kind: 'count_reports' }
  | { kind: 'list_reports' }
  | { kind: 'overview' }
  /** "How many findings …": a search with the filter (total exact, first rows shown). */
  | ({ kind: 'count_findings'; list: boolean } & Counting)
  /** "Which report has the most …", "top N reports / CWEs by …". */
  | ({ kind: 'top'; groupBy: 'report' | 'cwe'; n: number } & Counting)
  /** "Breakdown of findings by severity / CWE / verdict / report". */
  | ({ kind: 'breakdown'; groupBy: GroupByKey } & Counting)
  /** "How many reports have critical findings?" */
  | ({ kind: 'reports_with' } & Counting)
  | { kind: 'detail'; id: number }
  /** "Show the first one": a position in the previous answer's finding ids (-1 = last). */
  | { kind: 'detail_ref'; position: number }
  /** A follow-up with nothing earlier in the thread to refer to. */
  | { kind: 'no_previous' }
  /** A question with parts the planner cannot apply: answered without a number. */
  | { kind: 'unsupported'; parts: Unapplied[]; understood: PlannedQuestion }
  | { kind: 'out_of_scope'; reason: 'write' | 'unknown' }
  /** Longer than {@link PLANNER_MAX_QUESTION_CHARS}: not read at all. */
  | { kind: 'too_long'; length: number };

/** A plan that counts findings (and so may carry a scope, a report hint and follow-up state). */
export type CountingPlan = Extract<PlannedQuestion, { filter: FindingFilter }>;

/** What the previous answer of the thread left for follow-ups. */
export interface PreviousAnswer {
  lastFilter?: FindingFilter;
  lastFindingIds?: number[];
  lastScope?: ComputedScope;
}

/** Phrases that introduce a topic ("relate to X", "mention X", "about X"…), as word sequences. */
const TOPIC_MARKERS: string[][] = [
  ['relate', 'to'], ['relates', 'to'], ['related', 'to'], ['relating', 'to'], ['relevant', 'to'], ['linked', 'to'], ['connected', 'to'], ['tied', 'to'],
  ['referring', 'to'], ['refer', 'to'], ['refers', 'to'], ['pertaining', 'to'], ['pertain', 'to'], ['due', 'to'], ['caused', 'by'],
  ['mention'], ['mentions'], ['mentioning'], ['mentioned'], ['about'], ['regarding'], ['concerning'], ['involving'], ['involve'], ['involves'],
  ['matching'], ['match'], ['matches'], ['containing'], ['contain'], ['contains'], ['include'], ['includes'], ['including'], ['affecting'], ['affect'], ['affects'],
  ['with', 'the', 'word'], ['with', 'the', 'term'], ['with', 'the', 'text'], ['with', 'text'], ['with', 'keyword'], ['for', 'the', 'term'], ['for', 'the', 'topic'],
  ['on', 'the', 'topic', 'of'], ['on', 'the', 'subject', 'of'], ['of', 'type'], ['the', 'word'], ['the', 'term'], ['the', 'phrase'], ['the', 'keyword'],
  ['word'], ['term'], ['phrase'], ['keyword'], ['for'], ['on'], ['with'],
];
/** Markers that only count when a topic follows (they are also ordinary words). */
const WEAK_MARKERS = new Set(['for', 'on', 'with', 'include', 'includes', 'including', 'affect', 'affects', 'affecting', 'match', 'matches', 'matching', 'contain', 'contains', 'containing']);

/** Words that end a topic phrase. */
const TOPIC_STOP = new Set([
  'in', 'from', 'within', 'inside', 'by', 'per', 'grouped', 'that', 'which', 'who', 'where', 'and', 'with', 'having', 'have', 'has', 'are', 'is', 'were', 'was', 'across', 'among', 'of',
  'overall', 'total', 'altogether', 'currently', 'please', 'sorted', 'ordered', 'broken', 'split',
]);
/** Words trimmed from either end of a topic. */
const TOPIC_TRIM = new Set([
  'the', 'a', 'an', 'any', 'some', 'all', 'our', 'my', 'kind', 'type', 'sort', 'of', 'there', 'here', 'exist', 'exists', 'found', 'reported', 'detected', 'please', 'so', 'far', 'now', 'currently',
  'severity', 'severities', 'level', 'rated', 'topic', 'subject', 'term', 'word', 'text', 'keyword', 'things', 'stuff', 'related', 'relating', 'related-to', 'problems', 'risks', 'vulnerable', 'in',
]);
/** Verbs in a topic position that mean the question is about something else ("with critical severity"). */
const NOT_A_TOPIC = new Set(['it', 'them', 'those', 'these', 'that', 'this', 'severity', 'verdict', 'cwe', 'number', 'count', 'most', 'each', 'every', 'total', 'report', 'reports', 'file', 'files']);

/** Topics that are comparisons the text search cannot express ("CVSS above 7", "more than 3 CWEs"). */
const COMPARISON = /^(above|below|over|under|greater|less|fewer|fewest|more|higher|lower|lowest|smallest|rarest|bottom|minimum|than|least|between|exceeding|exceeds|>|<|>=|<=)$/;
/** Adjectives about how to count ("unique findings"), which no tool applies and which are not topics. */
const COUNTING_ADJECTIVES = new Set(['unique', 'distinct', 'different', 'separate', 'individual', 'duplicate', 'duplicated', 'duplicates', 'deduplicated', 'deduped', 'repeated', 'recurring']);
/** Words that qualify every finding or ranking ("security findings", "scanner reports", "most common"): not topics. */
const GENERIC_MODIFIERS = new Set(['security', 'scanner', 'scanners', 'common', 'commonest', 'frequent', 'prevalent', 'popular', 'widespread', 'often', 'frequently', 'imported', 'reported', 'detected', 'found']);
/** Words that join a topic to another topic the search cannot combine ("XSS or SQL injection"). */
const TOPIC_JOIN = new Set(['or', 'and', 'nor', 'plus', 'versus', 'vs']);
/** Prepositions after which unknown words may name a report ("in juice shop", "from fortify"). */
const REPORT_PREPOSITIONS = new Set(['in', 'from', 'within', 'inside', 'for', 'of', 'on', 'by']);
/** Words between a report noun and a name that follows it ("the report *named* fortify"). */
const REPORT_NAME_GLUE = new Set(['named', 'called', 'titled', 'for', 'of', 'from', 'the']);

const isSubjectNoun = (w: string) => FINDING_NOUNS.has(w) || REPORT_NOUNS.has(w);
const MARKER_WORDS = new Set(TOPIC_MARKERS.flat());

/**
 * Whether token `i` is a content word: a word (or a number glued to words) that is none of the
 * planner's vocabulary, scaffolding or filler.
 */
function isContent(s: Scan, i: number): boolean {
  const t = s.tokens[i];
  if (!t || t.kind !== 'word' || s.used[i]) return false;
  const w = t.w;
  return (
    !STOPWORDS.has(w) && !isSubjectNoun(w) && !CWE_NOUNS.has(w) && !COUNT_WORDS.has(w) && !TOP_WORDS.has(w) && !BREAKDOWN_WORDS.has(w) && !LIST_WORDS.has(w) &&
    !OVERVIEW_WORDS.has(w) && !WRITE_VERBS.has(w) && !REFERENCE_WORDS.has(w) && !(w in ORDINALS) && !(w in GROUP_WORDS) && !NEGATION_WORDS.has(w) && !w.endsWith("n't")
  );
}

/** Time phrases ("imported last week", "since March", "in 2023", "in the past 7 days", "new"): consumed, and returned as not applicable. */
function findTimePhrases(s: Scan): Unapplied[] {
  const out: Unapplied[] = [];
  const isAnchor = (i: number) => {
    const t = s.tokens[i];
    if (!t || s.used[i]) return false;
    if (t.kind === 'num') return (t.value as number) >= 1990 && (t.value as number) <= 2100;
    return t.kind === 'word' && (TIME_WORDS.has(t.w) || /^\d{4}-\d{2}(-\d{2})?$/.test(t.w) || /^\d{1,2}\/\d{1,2}(\/\d{2,4})?$/.test(t.w));
  };
  for (let i = 0; i < s.tokens.length; i++) {
    if (!isAnchor(i)) continue;
    let a = i;
    let b = i + 1;
    const glue = (k: number) => !s.used[k] && (TIME_GLUE.has(s.words[k]) || ARRIVAL_VERBS.has(s.words[k]) || s.tokens[k].kind === 'num' || NUMBER_WORDS[s.words[k]] !== undefined || isAnchor(k));
    while (a > 0 && glue(a - 1)) a--;
    while (b < s.tokens.length && (isAnchor(b) || (glue(b) && isAnchor(b + 1)) || s.words[b] === 'ago')) b++;
    // Trim glue that is ordinary scaffolding at the edges ("the", "of").
    while (a < i && /^(the|a|an|of|and|each|per|every)$/.test(s.words[a])) a++;
    consume(s, [a, b]);
    out.push({ text: spanText(s, [a, b]), reason: 'time' });
    i = b - 1;
  }
  return out;
}

/** "no CWE", "without a verdict", "have a CWE id": findings with or without any CWE id / verdict. */
function findPresence(s: Scan): ComputedScope['has'] | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const w = s.words[i];
    if (s.used[i] || s.tokens[i].kind !== 'word') continue;
    const key = CWE_NOUNS.has(w) ? 'cwe' : w === 'verdict' || w === 'verdicts' ? 'verdict' : undefined;
    if (!key) continue;
    let k = i - 1;
    while (k >= 0 && /^(a|an|any|single|one|assigned|known|mapped)$/.test(s.words[k]) && !s.used[k]) k--;
    const p = s.words[k];
    let end = i + 1;
    while (/^(id|ids|number|numbers|assigned|attached|mapping|tag|tags|set|yet|at|all)$/.test(s.words[end] ?? '')) end++;
    if (p && /^(no|without|lacking|missing|lack|lacks)$/.test(p) && !s.used[k]) {
      const neg = (s.words[k - 1] ?? '').endsWith("n't") || s.words[k - 1] === 'not' ? k - 1 : k;
      consume(s, [neg, end]);
      // "not without a CWE" would be a double negation: read it as "with".
      return { key, present: neg !== k };
    }
    if (p && /^(have|has|having|with|carry|carries|carrying|got|bear|bears)$/.test(p) && !s.used[k]) {
      const neg = negationBefore(s, k);
      if (neg) consume(s, neg);
      consume(s, [k, end]);
      return { key, present: !neg };
    }
  }
  return undefined;
}

/** Verdict named in the question (`fixed`, `still open`, `inconclusive verdict`, `not fixed`, `unfixed`). */
function findVerdict(s: Scan): { verdict: VerdictStatus; negated: boolean; text: string } | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const w = s.words[i];
    if (s.used[i]) continue;
    if (w === 'open' && (s.words[i - 1] === 'still' || s.words[i - 1] === 'verdict' || s.has('verdict', 'verdicts', 'retest'))) {
      const a = s.words[i - 1] === 'still' ? i - 1 : i;
      const neg = negationBefore(s, a);
      if (neg) consume(s, neg);
      consume(s, [a, i + 1]);
      return { verdict: 'still_open', negated: !!neg, text: spanText(s, [neg?.[0] ?? a, i + 1]) };
    }
    // "open findings", "findings that are open": not marked fixed ("still open" is the retest verdict, above).
    if (w === 'open' && i > 0 && (FINDING_NOUNS.has(s.words[i + 1] ?? '') || /^(are|is|remain|remaining|currently|stay)$/.test(s.words[i - 1]))) {
      const neg = negationBefore(s, i);
      if (neg) consume(s, neg);
      consume(s, [i, i + 1]);
      // "not open": marked fixed.
      return { verdict: 'fixed', negated: !neg, text: spanText(s, [neg?.[0] ?? i, i + 1]) };
    }
    // "unfixed", "unresolved": not (yet) marked fixed.
    if (/^(unfixed|unresolved|unremediated|unpatched)$/.test(w)) {
      consume(s, [i, i + 1]);
      return { verdict: 'fixed', negated: true, text: s.tokens[i].orig };
    }
    const v = VERDICT_WORDS[w];
    if (v && v !== 'still_open') {
      const neg = negationBefore(s, i);
      if (neg) consume(s, neg);
      consume(s, [i, i + 1]);
      return { verdict: v, negated: !!neg, text: spanText(s, [neg?.[0] ?? i, i + 1]) };
    }
    if (v) {
      consume(s, [i, i + 1]);
      return { verdict: v, negated: false, text: s.tokens[i].orig };
    }
  }
  return undefined;
}

/** The explicit number in "top 3", "top three", "3 reports", "five CWEs". */
function findTopN(s: Scan): number | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const t = s.tokens[i];
    const n = t.kind === 'num' ? (t.value as number) : NUMBER_WORDS[s.words[i]];
    if (n === undefined || n < 1 || n > 100 || s.used[i]) continue;
    const prev = s.words[i - 1];
    const next = s.words[i + 1];
    // "have 2 CWEs", "more than 3 CWEs" is a condition on findings, not "top 2".
    if (/^(have|has|having|with|exactly|than|least|most|only|just)$/.test(prev ?? '')) continue;
    if (prev === 'top' || prev === 'first' || (next && (REPORT_NOUNS.has(next) || CWE_NOUNS.has(next) || next === 'most'))) {
      s.used[i] = true;
      return n;
    }
  }
  return undefined;
}

/**
 * A report named by words next to "report"/"scan"/"file" ("the juice shop report", "the fortify
 * scan", "report named flawfinder"), consumed. Resolved later against the report file names.
 */
function findReportHint(s: Scan): ReportHint | undefined {
  for (let r = 0; r < s.words.length; r++) {
    if (!REPORT_NOUNS.has(s.words[r]) || s.used[r]) continue;
    let a = r;
    while (a > 0 && isNameLike(s, a - 1)) a--;
    if (a < r) return hint(s, [a, r], [a, r + 1], false);
    let b = r + 1;
    // "reports other than juice shop", "every report except fortify".
    const negation = NEGATIVE_TOPIC_MARKERS.find((m) => s.seq(b, m) && m.every((_, k) => !s.used[b + k]));
    if (negation) b += negation.length;
    while (b < s.words.length && REPORT_NAME_GLUE.has(s.words[b]) && !s.used[b]) b++;
    let e = b;
    while (e < s.words.length && isNameLike(s, e)) e++;
    if (e > b && (b > r + 1 || e === s.words.length || s.tokens[e].kind === 'punct')) {
      // "every report except X": the quantifier belongs to the exclusion, not to a breakdown.
      let q = r;
      while (negation && q > 0 && /^(every|all|each|any|the|other)$/.test(s.words[q - 1]) && !s.used[q - 1]) q--;
      const found = hint(s, [b, e], [q, e], false);
      return found && negation ? { ...found, negated: !found.negated } : found;
    }
  }
  return undefined;
}

/** A token that can be part of a report's name: a content word, or a number/version glued to one. */
function isNameLike(s: Scan, i: number): boolean {
  const t = s.tokens[i];
  if (!t || s.used[i]) return false;
  if (t.kind === 'num') return true;
  return isContent(s, i) && !MARKER_WORDS.has(t.w) && !(t.w in SEVERITY_WORDS) && !HARMLESS_WORDS.has(t.w);
}

function hint(s: Scan, name: [number, number], whole: [number, number], loose: boolean): ReportHint | undefined {
  if (!s.tokens.slice(name[0], name[1]).some((t) => t.kind === 'word')) return undefined;
  const neg = negationBefore(s, whole[0]);
  if (neg) consume(s, neg);
  consume(s, whole);
  return { text: spanText(s, name), negated: !!neg, loose };
}

/** A topic, possibly negated ("not about SQL injection", "non-XSS", "excluding cookies"). */
interface Topic {
  text: string;
  negated: boolean;
  /** Words that make the topic something the text search cannot express (a comparison, a second topic). */
  unapplicable?: Unapplied;
}

/** Markers that negate the topic after them. */
const NEGATIVE_TOPIC_MARKERS: string[][] = [
  ['unrelated', 'to'], ['not', 'related', 'to'], ['excluding'], ['except', 'for'], ['except'], ['other', 'than'], ['apart', 'from'], ['aside', 'from'], ['besides'], ['without'],
];

/**
 * The topic of the question (IMPORT-RULES: "how many findings relate to SQL injection?" → `SQL
 * injection`; "count the high XSS bugs" → `XSS`), as the operator wrote it. Found after a topic
 * marker, else as the words that modify the finding noun or follow "how many"/"most"/a negation.
 * Marks its tokens used. Quoted text is always the topic. A negation before it ("not about X",
 * "excluding X", "non-X findings") makes it negated.
 */
function findTopic(s: Scan): Topic | undefined {
  const quote = s.tokens.findIndex((t, i) => t.kind === 'quote' && !s.used[i]);
  if (quote >= 0) {
    const neg = negationBefore(s, quote);
    if (neg) consume(s, neg);
    s.used[quote] = true;
    return { text: String(s.tokens[quote].value), negated: !!neg };
  }
  for (let i = 0; i < s.words.length; i++) {
    if (s.used[i]) continue;
    for (const marker of NEGATIVE_TOPIC_MARKERS) {
      if (!s.seq(i, marker) || marker.some((_, k) => s.used[i + k])) continue;
      const range = topicRange(s, i + marker.length);
      if (!range) continue;
      consume(s, [i, range[1]]);
      return withLimits(s, range, true);
    }
    for (const marker of TOPIC_MARKERS) {
      if (!s.seq(i, marker) || marker.some((_, k) => s.used[i + k])) continue;
      const from = i + marker.length;
      const range = topicRange(s, from);
      if (!range) continue;
      if (WEAK_MARKERS.has(marker[0]) && !plausibleWeakTopic(s, range)) continue;
      const neg = negationBefore(s, i);
      if (neg) consume(s, neg);
      consume(s, [i, range[1]]);
      return withLimits(s, range, !!neg);
    }
  }
  // No marker: content words right before a finding noun ("XSS findings", "high SQL injection bugs"),
  // after "how many" / "most" at the end of the question ("which report has the most XSS?"), or
  // after a negation ("findings that are not XSS").
  for (const [a, b] of contentRuns(s)) {
    const next = nextWord(s, b);
    const prev = prevWord(s, a);
    const neg = negationBefore(s, a);
    const beforeNoun = next && FINDING_NOUNS.has(next) && next !== 'one' && next !== 'ones';
    const afterCount = prev && /^(many|most|much|count|about)$/.test(prev) && (!next || next === '?' || FINDING_NOUNS.has(next));
    const afterNegation = neg && (!next || /^[?.!,]$/.test(next) || FINDING_NOUNS.has(next));
    // "unique findings", "distinct issues": about counting, not a topic (left for the leftover check).
    if (s.words.slice(a, b).every((w) => COUNTING_ADJECTIVES.has(w) || GENERIC_MODIFIERS.has(w))) continue;
    if (beforeNoun || afterCount || afterNegation) {
      if (neg) consume(s, neg);
      consume(s, [a, b]);
      return withLimits(s, [a, b], !!neg);
    }
  }
  return undefined;
}

/** A topic whose words hold a comparison or a second topic is not something the text search can count. */
function withLimits(s: Scan, range: [number, number], negated: boolean): Topic {
  const text = spanText(s, range);
  const ws = s.words.slice(range[0], range[1]);
  if (ws.some((w) => COMPARISON.test(w))) return { text, negated, unapplicable: { text, reason: 'combination' } };
  const join = ws.findIndex((w, k) => k > 0 && TOPIC_JOIN.has(w));
  if (join > 0) return { text, negated, unapplicable: { text, reason: 'combination' } };
  return { text, negated };
}

/** [from, to) of the topic after a marker, trimmed; undefined when nothing topical follows. */
function topicRange(s: Scan, from: number): [number, number] | undefined {
  let to = from;
  while (to < s.tokens.length) {
    const t = s.tokens[to];
    if (t.kind !== 'word' && t.kind !== 'num') break;
    if (to > from && (TOPIC_STOP.has(t.w) || s.used[to])) break;
    if (to > from && SEVERITY_WORDS[t.w] && /^(severity|findings?|issues?|ones?)$/.test(s.words[to + 1] ?? '')) break;
    to++;
  }
  let a = from;
  let b = to;
  const trimmable = (k: number) => {
    const w = s.words[k];
    return TOPIC_TRIM.has(w) || FINDING_NOUNS.has(w) || (SEVERITY_WORDS[w] !== undefined && w !== 'none') || s.used[k];
  };
  while (a < b && trimmable(a)) a++;
  while (b > a && trimmable(b - 1)) b--;
  if (a >= b) return undefined;
  if (NOT_A_TOPIC.has(s.words[a]) && b - a === 1) return undefined;
  if (s.words.slice(a, b).every((w) => STOPWORDS.has(w) || REFERENCE_WORDS.has(w))) return undefined;
  return [a, b];
}

/** A weak marker ("for", "with", "on") takes a topic only when it is not scaffolding itself. */
function plausibleWeakTopic(s: Scan, [a, b]: [number, number]): boolean {
  const ws = s.words.slice(a, b);
  if (ws.some((w) => GROUP_WORDS[w] && (REPORT_NOUNS.has(w) || w === 'severity' || w === 'verdict'))) return false;
  if (ws.every((w) => STOPWORDS.has(w) || COUNT_WORDS.has(w) || TOP_WORDS.has(w) || /^\d+$/.test(w))) return false;
  return !ws.some((w) => COUNT_WORDS.has(w) || TOP_WORDS.has(w) || w === 'number');
}

/** Runs of unused content words (not stopwords, not vocabulary; without filler and topic markers unless `includeHarmless`). */
function contentRuns(s: Scan, opts: { includeHarmless?: boolean } = {}): [number, number][] {
  const runs: [number, number][] = [];
  let start = -1;
  for (let i = 0; i <= s.tokens.length; i++) {
    const content = i < s.tokens.length && isContent(s, i) && (opts.includeHarmless !== false || (!HARMLESS_WORDS.has(s.words[i]) && !MARKER_WORDS.has(s.words[i])));
    if (content && start < 0) start = i;
    if (!content && start >= 0) {
      runs.push([start, i]);
      start = -1;
    }
  }
  return runs;
}

const prevWord = (s: Scan, i: number) => (i > 0 ? s.words[i - 1] : undefined);
const nextWord = (s: Scan, i: number) => (i < s.words.length ? (s.tokens[i].kind === 'punct' ? s.tokens[i].orig : s.words[i]) : undefined);

/** Grouping asked for: "by severity", "per report", "severity breakdown", "distribution of CWEs". */
function findGroupBy(s: Scan): GroupByKey | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const w = s.words[i];
    if (w === 'by' || w === 'per' || w === 'each' || w === 'every' || (w === 'across' && s.words[i + 1] !== 'the')) {
      const at = s.words[i + 1] === 'the' || s.words[i + 1] === 'their' ? i + 2 : i + 1;
      const key = GROUP_WORDS[s.words[at]];
      if (key && !s.used[at]) {
        consume(s, [i, at + 1]);
        return key;
      }
    }
  }
  if (s.hasAnyUnused(BREAKDOWN_WORDS) || s.has('breakdown', 'distribution')) {
    for (let i = 0; i < s.words.length; i++) {
      const w = s.words[i];
      if (GROUP_WORDS[w] && !FINDING_NOUNS.has(w) && !s.used[i]) return GROUP_WORDS[w];
    }
    return 'severity';
  }
  return undefined;
}

function isWriteRequest(s: Scan): boolean {
  for (let i = 0; i < s.words.length; i++) {
    if (!WRITE_VERBS.has(s.words[i])) continue;
    const before = s.words.slice(0, i).filter((w) => !/^(please|pls|can|could|would|will|you|go|ahead|and|just|i|want|need|to|now|kindly|let's|lets|us|me)$/.test(w));
    const after = s.words.slice(i + 1, i + 5);
    const object = after.some((w) => isSubjectNoun(w) || /^(corpus|database|db|data|everything|all|table|tables|them|those|it|thread|history|settings|verdict|verdicts|severity|cwe)$/.test(w) || w.startsWith('⟨'));
    if (before.length === 0 || object) return true;
  }
  return false;
}

/** Words after an unattached negation that show it is not about the corpus ("don't delete anything", "not sure"). */
const HARMLESS_AFTER_NEGATION = /^(delete|remove|change|modify|know|sure|want|need|mind|care|worry|forget|understand|think|bother|hesitate|rush|guess|estimate|round|approximate|make|invent|lie)$/;

/**
 * What is left after every recognised part took its words: unknown content words (each run with
 * the preposition or negation before it), negations that negate nothing the planner understood,
 * and a second report name, CWE id or quoted phrase. A run after "in"/"from" is returned as a
 * loose report hint instead, when the question names no report otherwise.
 */
function leftovers(s: Scan, reportNamed: boolean): { parts: Unapplied[]; hint?: ReportHint } {
  const parts: Unapplied[] = [];
  let hintOut: ReportHint | undefined;
  // "the first report", "the second scan": a report by position, which no tool orders by.
  // "how many types of findings": a number of kinds, not of findings.
  for (let i = 0; i < s.tokens.length; i++) {
    if (s.used[i]) continue;
    const byPosition = s.words[i] in ORDINALS && REPORT_NOUNS.has(s.words[i + 1] ?? '');
    const kinds = /^(types|kinds|sorts|categories|classes|varieties)$/.test(s.words[i]) && s.words[i + 1] === 'of';
    if (!byPosition && !kinds) continue;
    consume(s, [i, i + 2]);
    parts.push({ text: spanText(s, [i, i + 2]), reason: 'unknown' });
  }
  // Rankings from the bottom: "the least findings", "fewest criticals", "smallest report".
  for (let i = 0; i < s.tokens.length; i++) {
    if (!s.used[i] && /^(least|fewest|smallest|lowest|rarest|bottom|minimum|min|lightest|quietest)$/.test(s.words[i])) {
      consume(s, [i, i + 1]);
      parts.push({ text: s.tokens[i].orig, reason: 'order' });
    }
  }
  // Comparisons no tool filter expresses: "more than one CWE", "at least 3 findings", "above 7", "2 CWEs".
  for (let i = 0; i < s.tokens.length; i++) {
    if (s.used[i]) continue;
    const w = s.words[i];
    const num = (k: number) => s.tokens[k]?.kind === 'num' || NUMBER_WORDS[s.words[k]] !== undefined || s.words[k] === 'one';
    const comparison =
      (/^(more|less|fewer|greater|higher|lower|bigger|smaller)$/.test(w) && s.words[i + 1] === 'than') ||
      (w === 'at' && /^(least|most)$/.test(s.words[i + 1] ?? '') && num(i + 2)) ||
      (/^(above|below|over|under|exceeding|exceeds|exactly|only)$/.test(w) && num(i + 1)) ||
      (num(i) && !s.used[i] && w !== 'one' && (CWE_NOUNS.has(s.words[i + 1] ?? '') || /^(verdicts?|versions?|endpoints?)$/.test(s.words[i + 1] ?? '')));
    if (!comparison) continue;
    let j = i + 1;
    while (j < s.tokens.length && j < i + 5 && s.tokens[j].kind !== 'punct' && !s.used[j]) j++;
    // Include what is compared ("CVSS score above 9").
    let k = i;
    while (k > 0 && isContent(s, k - 1) && !HARMLESS_WORDS.has(s.words[k - 1])) k--;
    consume(s, [k, j]);
    parts.push({ text: spanText(s, [k, j]), reason: 'combination' });
  }
  for (const [a, b] of contentRuns(s, { includeHarmless: false })) {
    if (s.used[a]) continue;
    let from = a;
    while (from > 0 && /^(the|a|an|our|my|this|that)$/.test(s.words[from - 1]) && !s.used[from - 1]) from--;
    const prep = from > 0 && !s.used[from - 1] ? s.words[from - 1] : undefined;
    let to = b;
    while (to < s.tokens.length && !s.used[to] && (s.tokens[to].kind === 'num' || (s.tokens[to].kind === 'word' && (isContent(s, to) || COMPARISON.test(s.words[to]))))) to++;
    const subjectOfHave = prep && /^(does|do|did)$/.test(prep) && /^(have|has|contain|contains|hold|holds|include|includes|report|show|list)$/.test(s.words[to] ?? '');
    if (!reportNamed && !hintOut && prep && (REPORT_PREPOSITIONS.has(prep) || subjectOfHave)) {
      hintOut = hint(s, [a, to], subjectOfHave ? [a, to] : [from - 1, to], true);
      continue;
    }
    const neg = negationBefore(s, from);
    const start = neg ? neg[0] : prep && (REPORT_PREPOSITIONS.has(prep) || /^(with|without|by|since|before|after|except|than|or|and|not)$/.test(prep)) ? from - 1 : a;
    consume(s, [start, to]);
    parts.push({ text: spanText(s, [start, to]), reason: neg ? 'negation' : 'unknown', ...(start === a && !neg ? { topicLike: true } : {}) });
  }
  for (let i = 0; i < s.tokens.length; i++) {
    if (s.used[i]) continue;
    const t = s.tokens[i];
    const w = s.words[i];
    if (t.kind === 'report' || t.kind === 'cwe' || t.kind === 'quote') {
      parts.push({ text: t.orig, reason: 'combination' });
      continue;
    }
    if (t.kind !== 'word' || !(NEGATION_WORDS.has(w) || w.endsWith("n't"))) continue;
    const next = s.words[i + 1];
    if (!next || /^[?.!,;:]$/.test(next) || HARMLESS_AFTER_NEGATION.test(next) || (w === 'no' && i === 0)) continue;
    let j = i + 1;
    while (j < s.tokens.length && j < i + 5 && s.tokens[j].kind !== 'punct') j++;
    parts.push({ text: spanText(s, [i, j]), reason: 'negation' });
  }
  return { parts, hint: hintOut };
}

/**
 * The longest message the built-in planner reads (characters). A question is a sentence or two; a
 * pasted document is not one, and reading it word by word against the vocabulary would only hold
 * the worker up (a 100,000-character message took 91 s before this limit).
 */
export const PLANNER_MAX_QUESTION_CHARS = 2000;

/**
 * Maps an operator's question to a plan, deterministically, tolerating wording, case and small
 * misspellings. `previous` is the follow-up state of the thread's last answer: a question that
 * refers back ("and how many of those are high?", "show the first one") is resolved against it.
 * Never invents a filter it did not read, and never drops one: a part it cannot apply (a date, an
 * unknown word after "in", a negation of something it does not know) makes the plan `unsupported`
 * so the answer says so instead of counting something else. Anything else is `out_of_scope`; a
 * message over {@link PLANNER_MAX_QUESTION_CHARS} is `too_long`, unread.
 */
export function parseQuestion(question: string, previous: PreviousAnswer = {}): PlannedQuestion {
  if (question.length > PLANNER_MAX_QUESTION_CHARS) return { kind: 'too_long', length: question.length };
  const s = scan(question, lex(question));
  const W = s.words;
  if (!W.length) return { kind: 'out_of_scope', reason: 'unknown' };
  if (isWriteRequest(s)) return { kind: 'out_of_scope', reason: 'write' };

  const hasFindingNoun = W.some((w) => FINDING_NOUNS.has(w) && w !== 'one' && w !== 'ones');
  const hasReportNoun = W.some((w) => REPORT_NOUNS.has(w));
  const hasCount = s.has('many', 'much') || s.hasAny(COUNT_WORDS);
  const wantsList = s.hasAny(LIST_WORDS) || (s.has('what', 'which') && s.has('are') && !hasCount);

  // Finding detail by id: "show finding 12", "finding #12", "describe #12".
  const hash = s.tokens.findIndex((t) => t.kind === 'hashnum');
  const findingIdx = W.findIndex((w, i) => (w === 'finding' || w === 'id') && s.tokens[i + 1]?.kind === 'num');
  if (!hasCount && (findingIdx >= 0 || (hash >= 0 && (s.hasAny(LIST_WORDS) || s.has('describe', 'detail', 'details', 'finding', 'explain', 'about', 'open'))))) {
    const id = findingIdx >= 0 ? (s.tokens[findingIdx + 1].value as number) : (s.tokens[hash].value as number);
    return { kind: 'detail', id };
  }

  // Detail by position in the previous answer: "show the first one", "details of the second finding", "the last one".
  const ord = W.findIndex((w) => w in ORDINALS);
  if (ord >= 0 && !hasCount && !s.hasAny(TOP_WORDS) && !hasReportNoun && !s.hasAny(TIME_WORDS) && (W.length <= 8 || /^(one|finding|result|issue|item|entry|vulnerability)$/.test(W[ord + 1] ?? ''))) {
    const next = W[ord + 1];
    if (!next || next === '?' || /^(one|finding|result|issue|item|entry|vulnerability|in|from|of|please)$/.test(next)) {
      if (!previous.lastFindingIds?.length) return { kind: 'no_previous' };
      return { kind: 'detail_ref', position: ORDINALS[W[ord]] };
    }
  }

  const filter: FindingFilter = {};
  const scope: ComputedScope = {};
  const exclude: FindingFilter = {};
  const unapplied: Unapplied[] = [];

  // Report file names, CWE ids and report ids ("report 3"), each possibly negated.
  const reportTok = s.tokens.findIndex((t) => t.kind === 'report');
  if (reportTok >= 0) {
    const neg = negationBefore(s, reportTok);
    if (neg) consume(s, neg);
    (neg ? exclude : filter).reportName = String(s.tokens[reportTok].value);
    s.used[reportTok] = true;
  } else {
    const rid = W.findIndex((w, i) => REPORT_NOUNS.has(w) && (s.tokens[i + 1]?.kind === 'num' || s.tokens[i + 1]?.kind === 'hashnum'));
    if (rid >= 0 && !s.has('top')) {
      const neg = negationBefore(s, rid);
      if (neg) consume(s, neg);
      (neg ? exclude : filter).reportId = s.tokens[rid + 1].value as number;
      consume(s, [rid, rid + 2]);
    }
  }
  const cweTok = s.tokens.findIndex((t) => t.kind === 'cwe');
  if (cweTok >= 0) {
    const neg = negationBefore(s, cweTok);
    if (neg) consume(s, neg);
    (neg ? exclude : filter).cwe = s.tokens[cweTok].value as number;
    s.used[cweTok] = true;
  }

  // "a severity of 'high'": a quoted severity word after "severity" is the severity, not a text search.
  const quoted = s.tokens.findIndex((t, i) => t.kind === 'quote' && SEVERITY_WORDS[String(t.value).toLowerCase()] && s.words.slice(Math.max(0, i - 3), i).some((w) => /^(severity|sev|rated|level|priority)$/.test(w)));
  if (quoted >= 0) {
    s.words[quoted] = String(s.tokens[quoted].value).toLowerCase();
    s.tokens[quoted] = { ...s.tokens[quoted], kind: 'word', w: s.words[quoted] };
  }
  unapplied.push(...findTimePhrases(s));
  const topN = findTopN(s);
  const severity = findSeverityExpression(s);
  if (severity) {
    if (severity.set.length === 1) filter.severity = severity.set[0];
    else if (severity.set.length < SEVERITIES.length) scope.severities = severity.set;
  }
  const verdict = findVerdict(s);
  if (verdict) (verdict.negated ? exclude : filter).verdict = verdict.verdict;
  const has = findPresence(s);
  if (has) {
    if (has.key === 'cwe' && (filter.cwe !== undefined || exclude.cwe !== undefined)) {
      if (!has.present) unapplied.push({ text: 'no CWE', reason: 'combination' });
    } else if (has.key === 'verdict' && (filter.verdict || exclude.verdict)) {
      if (!has.present) unapplied.push({ text: 'no verdict', reason: 'combination' });
    } else scope.has = has;
  }
  let reportHint = filter.reportName || filter.reportId !== undefined ? undefined : findReportHint(s);
  const groupBy = findGroupBy(s);
  const topic = findTopic(s);
  if (topic) {
    if (topic.unapplicable) unapplied.push(topic.unapplicable);
    else (topic.negated ? exclude : filter).text = topic.text;
  }
  const rest = leftovers(s, !!(filter.reportName || filter.reportId !== undefined || exclude.reportName || exclude.reportId !== undefined || reportHint));
  // "cookies and XSS", "XSS findings excluding juice shop": a second topic next to the one found, which one text search cannot add.
  unapplied.push(...rest.parts.map((p): Unapplied => (p.reason === 'unknown' && topic ? { ...p, reason: 'combination' } : p)));
  reportHint ??= rest.hint;

  // What several exact counts can combine: one excluded part at a time, and "with(out) a CWE/verdict" on its own.
  const excluded = Object.keys(exclude) as (keyof FindingFilter)[];
  if (excluded.length + (reportHint?.negated ? 1 : 0) > 1) unapplied.push({ text: 'several exclusions at once', reason: 'combination' });
  if (excluded.length) scope.exclude = exclude;
  if (scope.has && (scope.severities || scope.exclude || reportHint?.negated)) unapplied.push({ text: `findings ${scope.has.present ? 'with' : 'without'} a ${scope.has.key === 'cwe' ? 'CWE id' : 'verdict'}`, reason: 'combination' });
  const computed = Object.keys(scope).length ? scope : undefined;

  const referential =
    W.some((w) => REFERENCE_WORDS.has(w) && w !== 'which' && w !== 'it' && w !== 'that' && w !== 'this') ||
    /^(and|also|what about|how about|only|now|then|of which|among|but|excluding|except|without|not|minus|apart from|other than|besides)\b/.test(W.filter((w) => !w.startsWith('⟨') && w !== ',').join(' ')) ||
    s.seq(0, ['what', 'about']) ||
    s.seq(0, ['how', 'about']) ||
    (s.has('it') && !hasFindingNoun && !hasReportNoun);
  const newParts = Object.keys(filter).length > 0 || !!computed || !!(reportHint && !reportHint.loose);
  // "and in the fortify report?", "what about dd__flawfinder.sarif?": the previous question for another report.
  const isFollowUp = referential && (!hasFindingNoun || s.has('those', 'them', 'these'));
  let effective: PlannedScope = { filter, ...(computed ? { scope: computed } : {}) };
  let prior: PlannedScope | undefined;
  if (isFollowUp) {
    if (!previous.lastFilter) {
      if ((!newParts && !hasFindingNoun && !hasReportNoun) || s.has('those', 'them', 'these')) return { kind: 'no_previous' };
    } else {
      prior = { filter: previous.lastFilter, ...(previous.lastScope ? { scope: previous.lastScope } : {}) };
      effective = mergeScopes(prior, effective);
    }
  }
  const followUp = isFollowUp && !!previous.lastFilter;
  const topical = hasFindingNoun || hasReportNoun || newParts || followUp || cweTok >= 0;
  const counting = (): Counting => ({
    ...effective,
    followUp,
    ...(prior ? { previous: prior, asked: { filter, ...(computed ? { scope: computed } : {}) } } : {}),
    ...(reportHint ? { reportHint } : {}),
  });
  const finish = (plan: PlannedQuestion): PlannedQuestion => {
    if (plan.kind === 'out_of_scope' || plan.kind === 'no_previous') return plan;
    if ((plan.kind === 'top' || plan.kind === 'breakdown' || plan.kind === 'reports_with') && plan.scope?.has) {
      unapplied.push({ text: `findings ${plan.scope.has.present ? 'with' : 'without'} a ${plan.scope.has.key === 'cwe' ? 'CWE id' : 'verdict'}`, reason: 'combination' });
    }
    return unapplied.length ? { kind: 'unsupported', parts: unapplied, understood: plan } : plan;
  };

  // Overview: "give me an overview", "summarize the corpus".
  if (s.hasAny(OVERVIEW_WORDS) && !newParts && !groupBy && !hasCount) return finish({ kind: 'overview' });

  // "Which report has the most …", "top 3 reports by …", "most common CWEs".
  const wantsTop = s.hasAnyUnused(TOP_WORDS) || topN !== undefined;
  const topTarget: 'report' | 'cwe' | undefined = W.some((w) => CWE_NOUNS.has(w) || w === 'weakness' || w === 'weaknesses') && !hasReportNoun ? 'cwe' : hasReportNoun ? 'report' : undefined;
  if (wantsTop && topTarget && (s.has('which', 'what', 'top') || topN !== undefined || s.has('most'))) {
    const plural = W.some((w) => w === 'reports' || w === 'cwes' || w === 'weaknesses' || w === 'files' || w === 'scans');
    return finish({ kind: 'top', groupBy: topTarget, n: topN ?? (plural && !s.has('has', 'is', 'was') ? 5 : 1), ...counting() });
  }

  if (groupBy && (hasFindingNoun || followUp || s.has('breakdown', 'distribution') || groupBy !== 'report' || (reportHint && !reportHint.loose))) {
    return finish({ kind: 'breakdown', groupBy, ...counting() });
  }

  // Reports: "how many reports (are there)", "list the reports", "how many reports have critical findings".
  if (hasReportNoun && !hasFindingNoun && !newParts && !followUp) {
    if (hasCount) return finish({ kind: 'count_reports' });
    if (wantsList || s.has('what', 'which')) return finish({ kind: 'list_reports' });
  }
  if (hasReportNoun && hasCount && W.indexOf('reports') >= 0 && W.indexOf('reports') < Math.max(W.findIndex((w) => FINDING_NOUNS.has(w)), 99) && !filter.reportName && !reportHint && (newParts || followUp)) {
    const ri = W.indexOf('reports');
    if (W[ri - 1] === 'many' || W[ri - 1] === 'of') return finish({ kind: 'reports_with', ...counting() });
  }
  // A report named by part of its file name, with nothing else asked: its findings by severity.
  if (reportHint && !reportHint.loose && !hasCount && !hasFindingNoun && !followUp) return finish({ kind: 'breakdown', groupBy: 'severity', ...counting() });

  if (!topical) return { kind: 'out_of_scope', reason: 'unknown' };
  if (hasCount || wantsList || followUp || hasFindingNoun || newParts) {
    if (!hasCount && !wantsList && !followUp && !hasFindingNoun && !s.has('what', 'which', 'any')) return { kind: 'out_of_scope', reason: 'unknown' };
    return finish({ kind: 'count_findings', list: wantsList && !hasCount, ...counting() });
  }
  return { kind: 'out_of_scope', reason: 'unknown' };
}

/** The previous filter narrowed by the new parts (a new value of a field replaces the old one). */
export function mergeFilters(previous: FindingFilter, next: FindingFilter): FindingFilter {
  const merged: FindingFilter = { ...previous };
  for (const [k, v] of Object.entries(next)) if (v !== undefined) (merged as Record<string, unknown>)[k] = v;
  if (next.reportName) delete merged.reportId;
  if (next.reportId !== undefined) delete merged.reportName;
  return merged;
}

/**
 * A follow-up's scope: the previous one with the new parts applied. A new value of a part replaces
 * the old one (a severity or set of severities replaces the previous severity or set; a new topic,
 * report, CWE or verdict replaces an exclusion of the same kind; a new exclusion or with/without
 * replaces the old one); every other previous part is kept.
 */
export function mergeScopes(previous: PlannedScope, next: PlannedScope): PlannedScope {
  const filter = mergeFilters(previous.filter, next.filter);
  const scope: ComputedScope = { ...(previous.scope ?? {}) };
  if (next.filter.severity || next.scope?.severities) delete scope.severities;
  if (next.scope?.severities) {
    delete filter.severity;
    scope.severities = next.scope.severities;
  }
  if (scope.exclude) {
    const keys = Object.keys(scope.exclude).map((k) => (k === 'reportId' ? 'reportName' : k));
    const nextKeys = Object.keys(next.filter).map((k) => (k === 'reportId' ? 'reportName' : k));
    if (keys.some((k) => nextKeys.includes(k))) delete scope.exclude;
  }
  if (next.scope?.exclude) {
    scope.exclude = next.scope.exclude;
    for (const k of Object.keys(next.scope.exclude) as (keyof FindingFilter)[]) {
      if (k === 'reportName' || k === 'reportId') {
        delete filter.reportName;
        delete filter.reportId;
      } else delete filter[k];
    }
  }
  if (next.scope?.has) scope.has = next.scope.has;
  return { filter, ...(Object.keys(scope).length ? { scope } : {}) };
}
