import type { FindingFilter, GroupByKey, Severity, VerdictStatus } from '@corpus-chat/contracts';
import { lex, type Token } from './question-lexer';
import {
  BREAKDOWN_WORDS, COUNT_WORDS, CWE_NOUNS, FINDING_NOUNS, GROUP_WORDS, LIST_WORDS, NUMBER_WORDS, ORDINALS, OVERVIEW_WORDS, REFERENCE_WORDS,
  REPORT_NOUNS, SEVERITY_WORDS, STOPWORDS, TOP_WORDS, VERDICT_WORDS, WRITE_VERBS,
} from './vocabulary';

/** What the planner decided a question asks. */
export type PlannedQuestion =
  | { kind: 'count_reports' }
  | { kind: 'list_reports' }
  | { kind: 'overview' }
  /** "How many findings …": a search with the filter (total exact, first rows shown). */
  | { kind: 'count_findings'; filter: FindingFilter; followUp: boolean; list: boolean }
  /** "Which report has the most …", "top N reports / CWEs by …". */
  | { kind: 'top'; groupBy: 'report' | 'cwe'; n: number; filter: FindingFilter; followUp: boolean }
  /** "Breakdown of findings by severity / CWE / verdict / report". */
  | { kind: 'breakdown'; groupBy: GroupByKey; filter: FindingFilter; followUp: boolean }
  /** "How many reports have critical findings?" */
  | { kind: 'reports_with'; filter: FindingFilter; followUp: boolean }
  | { kind: 'detail'; id: number }
  /** "Show the first one": a position in the previous answer's finding ids (-1 = last). */
  | { kind: 'detail_ref'; position: number }
  /** A follow-up with nothing earlier in the thread to refer to. */
  | { kind: 'no_previous' }
  | { kind: 'out_of_scope'; reason: 'write' | 'unknown' };

/** What the previous answer of the thread left for follow-ups. */
export interface PreviousAnswer {
  lastFilter?: FindingFilter;
  lastFindingIds?: number[];
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

interface Scan {
  source: string;
  tokens: Token[];
  words: string[];
  used: boolean[];
  has(...ws: string[]): boolean;
  hasAny(set: Set<string> | Record<string, unknown>): boolean;
  index(w: string, from?: number): number;
  seq(at: number, seq: string[]): boolean;
}

function scan(source: string, tokens: Token[]): Scan {
  const words = tokens.map((t) => (t.kind === 'word' || t.kind === 'num' ? t.w : `⟨${t.kind}⟩`));
  return {
    source,
    tokens,
    words,
    used: tokens.map(() => false),
    has: (...ws) => ws.some((w) => words.includes(w)),
    hasAny: (set) => words.some((w) => (set instanceof Set ? set.has(w) : w in set)),
    index: (w, from = 0) => words.indexOf(w, from),
    seq: (at, s) => s.every((w, k) => words[at + k] === w),
  };
}

const isSubjectNoun = (w: string) => FINDING_NOUNS.has(w) || REPORT_NOUNS.has(w);

/** Severity named in the question (`high severity`, `severity: high`, `criticals`), marking its tokens used. */
function findSeverity(s: Scan): Severity | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const w = s.words[i];
    const sev = SEVERITY_WORDS[w];
    if (!sev || s.used[i]) continue;
    // "information disclosure", "info leak": a topic, not the info severity.
    if ((w === 'info' || w === 'information') && /^(disclosure|leak|leaks|leakage|exposure|exposed)$/.test(s.words[i + 1] ?? '')) continue;
    // "none" is only a severity in "severity none".
    if (w === 'none' && s.words[i - 1] !== 'severity') continue;
    // "low" in "how low" or "high" in "how high" is not a filter.
    if ((w === 'high' || w === 'low') && s.words[i - 1] === 'how') continue;
    s.used[i] = true;
    if (/^(severity|sev|risk|priority|level)$/.test(s.words[i + 1] ?? '')) s.used[i + 1] = true;
    if (/^(severity|sev|risk|priority|level)$/.test(s.words[i - 1] ?? '')) s.used[i - 1] = true;
    return sev;
  }
  return undefined;
}

/** Verdict named in the question (`fixed`, `still open`, `inconclusive verdict`). */
function findVerdict(s: Scan): VerdictStatus | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const w = s.words[i];
    if (s.used[i]) continue;
    if (w === 'open' && (s.words[i - 1] === 'still' || s.words[i - 1] === 'verdict' || s.has('verdict', 'verdicts', 'retest'))) {
      s.used[i] = true;
      if (s.words[i - 1] === 'still') s.used[i - 1] = true;
      return 'still_open';
    }
    if (w === 'fixed' && s.words[i - 1] === 'not') {
      s.used[i] = s.used[i - 1] = true;
      return 'still_open';
    }
    const v = VERDICT_WORDS[w];
    if (v) {
      s.used[i] = true;
      return v;
    }
  }
  return undefined;
}

/** The explicit number in "top 3", "top three", "3 reports", "five CWEs". */
function findTopN(s: Scan): number | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const t = s.tokens[i];
    const n = t.kind === 'num' ? (t.value as number) : NUMBER_WORDS[s.words[i]];
    if (n === undefined || n < 1 || n > 100) continue;
    const prev = s.words[i - 1];
    const next = s.words[i + 1];
    if (prev === 'top' || prev === 'first' || (next && (REPORT_NOUNS.has(next) || CWE_NOUNS.has(next) || next === 'most'))) {
      s.used[i] = true;
      return n;
    }
  }
  return undefined;
}

/**
 * The topic of the question (IMPORT-RULES: "how many findings relate to SQL injection?" → `SQL
 * injection`; "count the high XSS bugs" → `XSS`), as the operator wrote it. Found after a topic
 * marker, else as the words that modify the finding noun or follow "how many"/"most". Marks its
 * tokens used. Quoted text is always the topic.
 */
function findTopic(s: Scan): string | undefined {
  const quote = s.tokens.findIndex((t) => t.kind === 'quote');
  if (quote >= 0) {
    s.used[quote] = true;
    return String(s.tokens[quote].value);
  }
  for (let i = 0; i < s.words.length; i++) {
    for (const marker of TOPIC_MARKERS) {
      if (!s.seq(i, marker)) continue;
      const from = i + marker.length;
      const range = topicRange(s, from);
      if (!range) continue;
      if (WEAK_MARKERS.has(marker[0]) && !plausibleWeakTopic(s, range)) continue;
      for (let k = i; k < range[1]; k++) s.used[k] = true;
      return text(s, range);
    }
  }
  // No marker: content words right before a finding noun ("XSS findings", "high SQL injection bugs"),
  // or after "how many" / "most" at the end of the question ("which report has the most XSS?").
  const runs = contentRuns(s);
  for (const [a, b] of runs) {
    const next = nextWord(s, b);
    const prev = prevWord(s, a);
    if ((next && FINDING_NOUNS.has(next) && next !== 'one' && next !== 'ones') || (prev && /^(many|most|much|count|about)$/.test(prev) && (!next || next === '?' || FINDING_NOUNS.has(next)))) {
      for (let k = a; k < b; k++) s.used[k] = true;
      return text(s, [a, b]);
    }
  }
  return undefined;
}

/** [from, to) of the topic after a marker, trimmed; undefined when nothing topical follows. */
function topicRange(s: Scan, from: number): [number, number] | undefined {
  let to = from;
  while (to < s.tokens.length) {
    const t = s.tokens[to];
    if (t.kind !== 'word' && t.kind !== 'num') break;
    if (to > from && TOPIC_STOP.has(t.w)) break;
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

/** Runs of unused content words (not stopwords, not vocabulary). */
function contentRuns(s: Scan): [number, number][] {
  const runs: [number, number][] = [];
  let start = -1;
  for (let i = 0; i <= s.tokens.length; i++) {
    const t = s.tokens[i];
    const content =
      t && t.kind === 'word' && !s.used[i] && !STOPWORDS.has(t.w) && !isSubjectNoun(t.w) && !CWE_NOUNS.has(t.w) && !COUNT_WORDS.has(t.w) && !TOP_WORDS.has(t.w) &&
      !BREAKDOWN_WORDS.has(t.w) && !LIST_WORDS.has(t.w) && !OVERVIEW_WORDS.has(t.w) && !WRITE_VERBS.has(t.w) && !REFERENCE_WORDS.has(t.w) && !(t.w in ORDINALS) && !(t.w in GROUP_WORDS);
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
/** The operator's own wording of tokens [a, b). */
const text = (s: Scan, [a, b]: [number, number]) => s.source.slice(s.tokens[a].start, s.tokens[b - 1].end).replace(/\s+/g, ' ').trim();

/** Grouping asked for: "by severity", "per report", "severity breakdown", "distribution of CWEs". */
function findGroupBy(s: Scan): GroupByKey | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const w = s.words[i];
    if (w === 'by' || w === 'per' || w === 'each' || w === 'every' || (w === 'across' && s.words[i + 1] !== 'the')) {
      const key = GROUP_WORDS[s.words[i + 1]] ?? (s.words[i + 1] === 'the' || s.words[i + 1] === 'their' ? GROUP_WORDS[s.words[i + 2]] : undefined);
      if (key) return key;
    }
  }
  if (s.hasAny(BREAKDOWN_WORDS) || s.has('breakdown', 'distribution')) {
    for (const w of s.words) if (GROUP_WORDS[w] && !FINDING_NOUNS.has(w)) return GROUP_WORDS[w];
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

/**
 * Maps an operator's question to a plan, deterministically, tolerating wording, case and small
 * misspellings. `previous` is the follow-up state of the thread's last answer: a question that
 * refers back ("and how many of those are high?", "show the first one") is resolved against it.
 * Never invents a filter it did not read; anything else is `out_of_scope`.
 */
export function parseQuestion(question: string, previous: PreviousAnswer = {}): PlannedQuestion {
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
  if (ord >= 0 && !hasCount && !s.hasAny(TOP_WORDS) && !hasReportNoun && (W.length <= 8 || /^(one|finding|result|issue|item|entry|vulnerability)$/.test(W[ord + 1] ?? ''))) {
    const next = W[ord + 1];
    if (!next || next === '?' || /^(one|finding|result|issue|item|entry|vulnerability|in|from|of|please)$/.test(next)) {
      if (!previous.lastFindingIds?.length) return { kind: 'no_previous' };
      return { kind: 'detail_ref', position: ORDINALS[W[ord]] };
    }
  }

  const cweTok = s.tokens.findIndex((t) => t.kind === 'cwe');
  const reportTok = s.tokens.findIndex((t) => t.kind === 'report');
  const filter: FindingFilter = {};
  if (cweTok >= 0) {
    filter.cwe = s.tokens[cweTok].value as number;
    s.used[cweTok] = true;
  }
  if (reportTok >= 0) {
    filter.reportName = String(s.tokens[reportTok].value);
    s.used[reportTok] = true;
  } else {
    const rid = W.findIndex((w, i) => REPORT_NOUNS.has(w) && (s.tokens[i + 1]?.kind === 'num' || s.tokens[i + 1]?.kind === 'hashnum'));
    if (rid >= 0 && !s.has('top')) {
      filter.reportId = s.tokens[rid + 1].value as number;
      s.used[rid + 1] = true;
    }
  }
  const topN = findTopN(s);
  const severity = findSeverity(s);
  if (severity) filter.severity = severity;
  const verdict = findVerdict(s);
  if (verdict) filter.verdict = verdict;
  const groupBy = findGroupBy(s);
  const topic = findTopic(s);
  if (topic) filter.text = topic;

  const referential =
    W.some((w) => REFERENCE_WORDS.has(w) && w !== 'which' && w !== 'it' && w !== 'that' && w !== 'this') ||
    /^(and|also|what about|how about|only|now|then|of which|among)\b/.test(W.filter((w) => !w.startsWith('⟨') && w !== ',').join(' ')) ||
    s.seq(0, ['what', 'about']) ||
    s.seq(0, ['how', 'about']) ||
    (s.has('it') && !hasFindingNoun && !hasReportNoun);
  const newParts = Object.keys(filter).length > 0;
  const isFollowUp = referential && (!hasFindingNoun || s.has('those', 'them', 'these')) && !(filter.reportName && !s.has('those', 'them', 'these'));
  let effective: FindingFilter = filter;
  if (isFollowUp) {
    if (!previous.lastFilter) {
      if ((!newParts && !hasFindingNoun && !hasReportNoun) || s.has('those', 'them', 'these')) return { kind: 'no_previous' };
    } else {
      effective = mergeFilters(previous.lastFilter, filter);
    }
  }
  const followUp = isFollowUp && !!previous.lastFilter;
  const topical = hasFindingNoun || hasReportNoun || newParts || followUp || cweTok >= 0;

  // Overview: "give me an overview", "summarize the corpus".
  if (s.hasAny(OVERVIEW_WORDS) && !newParts && !groupBy && !hasCount) return { kind: 'overview' };

  // "Which report has the most …", "top 3 reports by …", "most common CWEs".
  const wantsTop = s.hasAny(TOP_WORDS) || topN !== undefined;
  const topTarget: 'report' | 'cwe' | undefined = W.some((w) => CWE_NOUNS.has(w) || w === 'weakness' || w === 'weaknesses') && !hasReportNoun ? 'cwe' : hasReportNoun ? 'report' : undefined;
  if (wantsTop && topTarget && (s.has('which', 'what', 'top') || topN !== undefined || s.has('most'))) {
    const plural = W.some((w) => w === 'reports' || w === 'cwes' || w === 'weaknesses' || w === 'files' || w === 'scans');
    return { kind: 'top', groupBy: topTarget, n: topN ?? (plural && !s.has('has', 'is', 'was') ? 5 : 1), filter: effective, followUp };
  }

  if (groupBy && (hasFindingNoun || followUp || s.has('breakdown', 'distribution') || groupBy !== 'report')) {
    return { kind: 'breakdown', groupBy, filter: effective, followUp };
  }

  // Reports: "how many reports (are there)", "list the reports", "how many reports have critical findings".
  if (hasReportNoun && !hasFindingNoun && !newParts && !followUp) {
    if (hasCount) return { kind: 'count_reports' };
    if (wantsList || s.has('what', 'which')) return { kind: 'list_reports' };
  }
  if (hasReportNoun && hasCount && W.indexOf('reports') >= 0 && W.indexOf('reports') < Math.max(W.findIndex((w) => FINDING_NOUNS.has(w)), 99) && !filter.reportName && (newParts || followUp)) {
    const ri = W.indexOf('reports');
    if (W[ri - 1] === 'many' || W[ri - 1] === 'of') return { kind: 'reports_with', filter: effective, followUp };
  }

  if (!topical) return { kind: 'out_of_scope', reason: 'unknown' };
  if (hasCount || wantsList || followUp || hasFindingNoun || newParts) {
    if (!hasCount && !wantsList && !followUp && !hasFindingNoun && !s.has('what', 'which', 'any')) return { kind: 'out_of_scope', reason: 'unknown' };
    return { kind: 'count_findings', filter: effective, followUp, list: wantsList && !hasCount };
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
