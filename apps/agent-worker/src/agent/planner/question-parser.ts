import {
  SEVERITIES,
  type ComputedScope,
  type FindingFilter,
  type GroupByKey,
  type ListedGroups,
} from '@corpus-chat/contracts';
import { lex } from './question-lexer';
import { consume, negationBefore, scan, spanText, type Scan } from './question-scan';
import { COMPARISON, contentRuns, findTopic, isContent } from './question-topic';
import {
  findArchived,
  findFormat,
  findPresence,
  findReportHint,
  findStatus,
  findTimePhrases,
  findTopN,
  findVerdict,
  hint,
  isWriteRequest,
} from './question-recognizers';
import { parseShare } from './question-share';
import { inOperatorsWords, readRussian } from './russian-vocabulary';
import { findComparison, type ComparisonPlan } from './scan-comparison';
import { findEdited } from './question-edited';
import { findSeverityExpression } from './severity-expression';
import { mergeFilters, mergeScopes } from './follow-up-scope';

export { mergeFilters, mergeScopes };
import {
  BREAKDOWN_WORDS,
  COUNT_WORDS,
  CWE_NOUNS,
  FINDING_NOUNS,
  FORMAT_NOUNS,
  FREQUENCY_WORDS,
  GROUP_WORDS,
  SHARE_WORDS,
  HARMLESS_WORDS,
  LIST_WORDS,
  NEGATION_WORDS,
  NUMBER_WORDS,
  ORDINALS,
  OVERVIEW_WORDS,
  REFERENCE_WORDS,
  REPORT_NOUNS,
  SEVERITY_WORDS,
  TIME_WORDS,
  TOP_WORDS,
} from './vocabulary';

/** Prepositions after which unknown words may name a report ("in juice shop", "from fortify"). */
const REPORT_PREPOSITIONS = new Set(['in', 'from', 'within', 'inside', 'for', 'of', 'on', 'by']);

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
  /** "Which report has the most …", "top N reports / CWEs by …", "most common vulnerability" (title), "which format …". */
  | ({ kind: 'top'; groupBy: 'report' | 'cwe' | 'format' | 'title'; n: number } & Counting)
  /** "What percentage of findings are critical?": the part's count and the whole's (`whole` ⊆ the part's filter). */
  | ({ kind: 'share'; whole: FindingFilter } & Counting)
  /** "Breakdown of findings by severity / CWE / verdict / report". */
  | ({ kind: 'breakdown'; groupBy: GroupByKey } & Counting)
  /** "How many reports have critical findings?" */
  | ({ kind: 'reports_with' } & Counting)
  | { kind: 'detail'; id: number }
  /** "Show the first one": a position in the previous answer's finding ids (-1 = last). */
  | { kind: 'detail_ref'; position: number }
  /** "Show the second one" after a ranking: a position in the groups it listed (-1 = last). */
  | { kind: 'group_ref'; position: number }
  /** A follow-up with nothing earlier in the thread to refer to. */
  | { kind: 'no_previous' }
  /** A question with parts the planner cannot apply: answered without a number. */
  | { kind: 'unsupported'; parts: Unapplied[]; understood: PlannedQuestion }
  | { kind: 'out_of_scope'; reason: 'write' | 'unknown' }
  /** Longer than {@link PLANNER_MAX_QUESTION_CHARS}: not read at all. */
  | { kind: 'too_long'; length: number }
  /** "What is new in B compared with A?": two scans of one target compared (see `scan-comparison.ts`). */
  | ComparisonPlan;

/** A plan that counts findings (and so may carry a scope, a report hint and follow-up state). */
export type CountingPlan = Extract<PlannedQuestion, { filter: FindingFilter }>;

/** What the previous answer of the thread left for follow-ups. */
export interface PreviousAnswer {
  lastFilter?: FindingFilter;
  lastFindingIds?: number[];
  lastScope?: ComputedScope;
  lastGroups?: ListedGroups;
}

/** Grouping asked for: "by severity", "per report", "severity breakdown", "distribution of CWEs". */
function findGroupBy(s: Scan): GroupByKey | undefined {
  for (let i = 0; i < s.words.length; i++) {
    const w = s.words[i];
    // "counting every format", "including all reports": everything is counted, nothing is grouped.
    if (
      (w === 'each' || w === 'every') &&
      /^(counting|including|across|over|in|from)$/.test(s.words[i - 1] ?? '')
    ) {
      consume(s, [i - 1, i + 2]);
      continue;
    }
    if (
      w === 'by' ||
      w === 'per' ||
      w === 'each' ||
      w === 'every' ||
      (w === 'across' && s.words[i + 1] !== 'the')
    ) {
      const at = s.words[i + 1] === 'the' || s.words[i + 1] === 'their' ? i + 2 : i + 1;
      const key = GROUP_WORDS[s.words[at]];
      if (key && !s.used[at]) {
        // "by triage status": both words name the one grouping.
        consume(s, [i, at + (key === 'status' && s.words[at + 1] === 'status' ? 2 : 1)]);
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

/** Words after an unattached negation that show it is not about the corpus ("don't delete anything", "not sure"). */
const HARMLESS_AFTER_NEGATION =
  /^(delete|remove|change|modify|know|sure|want|need|mind|care|worry|forget|understand|think|bother|hesitate|rush|guess|estimate|round|approximate|make|invent|lie)$/;

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
    const kinds =
      /^(types|kinds|sorts|categories|classes|varieties)$/.test(s.words[i]) && s.words[i + 1] === 'of';
    if (!byPosition && !kinds) continue;
    consume(s, [i, i + 2]);
    parts.push({ text: spanText(s, [i, i + 2]), reason: 'unknown' });
  }
  // Rankings from the bottom: "the least findings", "fewest criticals", "smallest report".
  for (let i = 0; i < s.tokens.length; i++) {
    if (
      !s.used[i] &&
      /^(least|fewest|smallest|lowest|rarest|bottom|minimum|min|lightest|quietest)$/.test(s.words[i])
    ) {
      consume(s, [i, i + 1]);
      parts.push({ text: s.tokens[i].orig, reason: 'order' });
    }
  }
  // Comparisons no tool filter expresses: "more than one CWE", "at least 3 findings", "above 7", "2 CWEs".
  for (let i = 0; i < s.tokens.length; i++) {
    if (s.used[i]) continue;
    const w = s.words[i];
    const num = (k: number) =>
      s.tokens[k]?.kind === 'num' || NUMBER_WORDS[s.words[k]] !== undefined || s.words[k] === 'one';
    const comparison =
      (/^(more|less|fewer|greater|higher|lower|bigger|smaller)$/.test(w) && s.words[i + 1] === 'than') ||
      (w === 'at' && /^(least|most)$/.test(s.words[i + 1] ?? '') && num(i + 2)) ||
      (/^(above|below|over|under|exceeding|exceeds|exactly|only)$/.test(w) && num(i + 1)) ||
      (num(i) &&
        !s.used[i] &&
        w !== 'one' &&
        (CWE_NOUNS.has(s.words[i + 1] ?? '') ||
          /^(verdicts?|versions?|endpoints?)$/.test(s.words[i + 1] ?? '')));
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
    while (
      to < s.tokens.length &&
      !s.used[to] &&
      (s.tokens[to].kind === 'num' ||
        (s.tokens[to].kind === 'word' && (isContent(s, to) || COMPARISON.test(s.words[to]))))
    )
      to++;
    const subjectOfHave =
      prep &&
      /^(does|do|did)$/.test(prep) &&
      /^(have|has|contain|contains|hold|holds|include|includes|report|show|list)$/.test(s.words[to] ?? '');
    if (!reportNamed && !hintOut && prep && (REPORT_PREPOSITIONS.has(prep) || subjectOfHave)) {
      hintOut = hint(s, [a, to], subjectOfHave ? [a, to] : [from - 1, to], true);
      continue;
    }
    const neg = negationBefore(s, from);
    const start = neg
      ? neg[0]
      : prep &&
          (REPORT_PREPOSITIONS.has(prep) ||
            /^(with|without|by|since|before|after|except|than|or|and|not)$/.test(prep))
        ? from - 1
        : a;
    consume(s, [start, to]);
    parts.push({
      text: spanText(s, [start, to]),
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
    if (t.kind !== 'word' || !(NEGATION_WORDS.has(w) || w.endsWith("n't"))) continue;
    const next = s.words[i + 1];
    if (!next || /^[?.!,;:]$/.test(next) || HARMLESS_AFTER_NEGATION.test(next) || (w === 'no' && i === 0))
      continue;
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
  // A Russian question is read in the vocabulary's English words; a refusal quotes the operator's own.
  const russian = readRussian(question);
  return russian
    ? inOperatorsWords(parseWords(russian.text, previous), russian.original)
    : parseWords(question, previous);
}

function parseWords(question: string, previous: PreviousAnswer): PlannedQuestion {
  const s = scan(question, lex(question));
  const W = s.words;
  if (!W.length) return { kind: 'out_of_scope', reason: 'unknown' };
  const comparison = findComparison(s.tokens);
  // "did operators change the severity": a question about past edits, read before the write check.
  const edited = comparison ? undefined : findEdited(s);
  if (isWriteRequest(s)) return { kind: 'out_of_scope', reason: 'write' };
  if (comparison) return comparison;
  if (s.hasAny(SHARE_WORDS)) return parseShare(s, previous, parseQuestion);

  const hasFindingNoun = W.some((w) => FINDING_NOUNS.has(w) && w !== 'one' && w !== 'ones');
  const hasReportNoun = W.some((w) => REPORT_NOUNS.has(w));
  const hasCount = s.has('many', 'much') || s.hasAny(COUNT_WORDS);
  const wantsList = s.hasAny(LIST_WORDS) || (s.has('what', 'which') && s.has('are') && !hasCount);

  // Finding detail by id: "show finding 12", "finding #12", "describe #12".
  const hash = s.tokens.findIndex((t) => t.kind === 'hashnum');
  const findingIdx = W.findIndex(
    (w, i) => (w === 'finding' || w === 'id') && s.tokens[i + 1]?.kind === 'num',
  );
  if (
    !hasCount &&
    (findingIdx >= 0 ||
      (hash >= 0 &&
        (s.hasAny(LIST_WORDS) ||
          s.has('describe', 'detail', 'details', 'finding', 'explain', 'about', 'open'))))
  ) {
    const id =
      findingIdx >= 0 ? (s.tokens[findingIdx + 1].value as number) : (s.tokens[hash].value as number);
    return { kind: 'detail', id };
  }

  // Detail by position in the previous answer: "show the first one", "details of the second finding", "the last one".
  const ord = W.findIndex((w) => w in ORDINALS);
  if (
    ord >= 0 &&
    !hasCount &&
    !s.hasAny(TOP_WORDS) &&
    !hasReportNoun &&
    !s.hasAny(TIME_WORDS) &&
    (W.length <= 8 || /^(one|finding|result|issue|item|entry|vulnerability)$/.test(W[ord + 1] ?? ''))
  ) {
    const next = W[ord + 1];
    if (
      !next ||
      next === '?' ||
      /^(one|finding|result|issue|item|entry|vulnerability|in|from|of|please)$/.test(next)
    ) {
      if (previous.lastFindingIds?.length) return { kind: 'detail_ref', position: ORDINALS[W[ord]] };
      if (previous.lastGroups?.groups.length) return { kind: 'group_ref', position: ORDINALS[W[ord]] };
      return { kind: 'no_previous' };
    }
  }

  const filter: FindingFilter = edited ? { edited } : {};
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
    const rid = W.findIndex(
      (w, i) =>
        REPORT_NOUNS.has(w) && (s.tokens[i + 1]?.kind === 'num' || s.tokens[i + 1]?.kind === 'hashnum'),
    );
    if (rid >= 0 && !s.has('top')) {
      const neg = negationBefore(s, rid);
      if (neg) consume(s, neg);
      (neg ? exclude : filter).reportId = s.tokens[rid + 1].value as number;
      consume(s, [rid, rid + 2]);
    }
  }
  const archived = findArchived(s);
  if (archived && 'unapplied' in archived) unapplied.push(archived.unapplied);
  // "how many archived reports are there?" counts reports, which the planner only counts live.
  else if (archived?.include && !hasFindingNoun)
    unapplied.push({ text: 'archived reports', reason: 'combination' });
  else if (archived?.include) filter.includeArchived = true;
  const format = findFormat(s);
  if (format) (format.negated ? exclude : filter).format = format.format;
  const cweTok = s.tokens.findIndex((t) => t.kind === 'cwe');
  if (cweTok >= 0) {
    const neg = negationBefore(s, cweTok);
    if (neg) consume(s, neg);
    (neg ? exclude : filter).cwe = s.tokens[cweTok].value as number;
    s.used[cweTok] = true;
  }

  // "a severity of 'high'": a quoted severity word after "severity" is the severity, not a text search.
  const quoted = s.tokens.findIndex(
    (t, i) =>
      t.kind === 'quote' &&
      SEVERITY_WORDS[String(t.value).toLowerCase()] &&
      s.words.slice(Math.max(0, i - 3), i).some((w) => /^(severity|sev|rated|level|priority)$/.test(w)),
  );
  if (quoted >= 0) {
    s.words[quoted] = String(s.tokens[quoted].value).toLowerCase();
    s.tokens[quoted] = { ...s.tokens[quoted], kind: 'word', w: s.words[quoted] };
  }
  unapplied.push(...findTimePhrases(s));
  const topN = findTopN(s);
  const status = findStatus(s);
  if (status) (status.negated ? exclude : filter).status = status.status;
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
  const rest = leftovers(
    s,
    !!(
      filter.reportName ||
      filter.reportId !== undefined ||
      exclude.reportName ||
      exclude.reportId !== undefined ||
      reportHint
    ),
  );
  // "cookies and XSS", "XSS findings excluding juice shop": a second topic next to the one found, which one text search cannot add.
  unapplied.push(
    ...rest.parts.map((p): Unapplied =>
      p.reason === 'unknown' && topic ? { ...p, reason: 'combination' } : p,
    ),
  );
  reportHint ??= rest.hint;

  // What several exact counts can combine: one excluded part at a time, and "with(out) a CWE/verdict" on its own.
  const excluded = Object.keys(exclude) as (keyof FindingFilter)[];
  if (excluded.length + (reportHint?.negated ? 1 : 0) > 1)
    unapplied.push({ text: 'several exclusions at once', reason: 'combination' });
  if (excluded.length) scope.exclude = exclude;
  if (scope.has && (scope.severities || scope.exclude || reportHint?.negated))
    unapplied.push({
      text: `findings ${scope.has.present ? 'with' : 'without'} a ${scope.has.key === 'cwe' ? 'CWE id' : 'verdict'}`,
      reason: 'combination',
    });
  const computed = Object.keys(scope).length ? scope : undefined;

  // "does it have", "in it", "that report": the report the previous answer was about (its filter carries it).
  const previousReport = W.some(
    (w, i) =>
      (w === 'it' && /^(does|do|did|in|of|from|has)$/.test(W[i - 1] ?? '')) ||
      (/^(that|this|same)$/.test(w) && /^(report|scan|file)$/.test(W[i + 1] ?? '')),
  );
  const referential =
    previousReport ||
    W.some((w) => REFERENCE_WORDS.has(w) && w !== 'which' && w !== 'it' && w !== 'that' && w !== 'this') ||
    /^(and|also|what about|how about|only|now|then|of which|among|but|excluding|except|without|not|minus|apart from|other than|besides)\b/.test(
      W.filter((w) => !w.startsWith('⟨') && w !== ',').join(' '),
    ) ||
    s.seq(0, ['what', 'about']) ||
    s.seq(0, ['how', 'about']) ||
    (s.has('it') && !hasFindingNoun && !hasReportNoun);
  const newParts = Object.keys(filter).length > 0 || !!computed || !!(reportHint && !reportHint.loose);
  // "and in the fortify report?", "what about dd__flawfinder.sarif?": the previous question for another report.
  const isFollowUp = referential && (!hasFindingNoun || previousReport || s.has('those', 'them', 'these'));
  let effective: PlannedScope = { filter, ...(computed ? { scope: computed } : {}) };
  let prior: PlannedScope | undefined;
  if (isFollowUp) {
    if (!previous.lastFilter) {
      if (
        (!newParts && !hasFindingNoun && !hasReportNoun) ||
        previousReport ||
        s.has('those', 'them', 'these')
      )
        return { kind: 'no_previous' };
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
    // Report counts and lists come from list_all_reports without archived ones: not what was asked.
    if (filter.includeArchived && !('filter' in plan))
      unapplied.push({ text: 'archived reports', reason: 'combination' });
    if (
      (plan.kind === 'top' || plan.kind === 'breakdown' || plan.kind === 'reports_with') &&
      plan.scope?.has
    ) {
      unapplied.push({
        text: `findings ${plan.scope.has.present ? 'with' : 'without'} a ${plan.scope.has.key === 'cwe' ? 'CWE id' : 'verdict'}`,
        reason: 'combination',
      });
    }
    return unapplied.length ? { kind: 'unsupported', parts: unapplied, understood: plan } : plan;
  };

  // Overview: "give me an overview", "summarize the corpus".
  if (s.hasAny(OVERVIEW_WORDS) && !newParts && !groupBy && !hasCount) return finish({ kind: 'overview' });

  // "Which report has the most …", "top 3 reports by …", "most common CWEs".
  const wantsTop = s.hasAnyUnused(TOP_WORDS) || topN !== undefined;
  // "most common vulnerability": a frequency word right before a finding noun asks for the commonest title.
  const titleAsk =
    W.some(
      (w, i) =>
        FREQUENCY_WORDS.has(w) &&
        FINDING_NOUNS.has(W[i + 1] ?? '') &&
        !/^(weakness|weaknesses|one|ones)$/.test(W[i + 1]),
    ) || s.has('title', 'titles');
  const topTarget: 'report' | 'cwe' | 'format' | 'title' | undefined = s.hasAny(FORMAT_NOUNS)
    ? 'format'
    : W.some((w) => CWE_NOUNS.has(w) || w === 'weakness' || w === 'weaknesses') && !hasReportNoun
      ? 'cwe'
      : titleAsk
        ? 'title'
        : hasReportNoun
          ? 'report'
          : undefined;
  const rankedBy = W.some((w, i) => TOP_WORDS.has(w) && /^(number|count|amount|total)$/.test(W[i + 1] ?? ''));
  if (
    wantsTop &&
    topTarget &&
    (s.has('which', 'what', 'top') || topN !== undefined || s.has('most') || rankedBy)
  ) {
    const plural = W.some(
      (w) =>
        w === 'reports' ||
        w === 'cwes' ||
        w === 'weaknesses' ||
        w === 'files' ||
        w === 'scans' ||
        w === 'formats' ||
        w === 'titles',
    );
    return finish({
      kind: 'top',
      groupBy: topTarget,
      n: topN ?? (plural && !s.has('has', 'is', 'was') ? 5 : 1),
      ...counting(),
    });
  }

  if (
    groupBy &&
    (hasFindingNoun ||
      followUp ||
      s.has('breakdown', 'distribution') ||
      groupBy !== 'report' ||
      (reportHint && !reportHint.loose))
  ) {
    return finish({ kind: 'breakdown', groupBy, ...counting() });
  }

  // Reports: "how many reports (are there)", "list the reports", "how many reports have critical findings".
  if (hasReportNoun && !hasFindingNoun && !newParts && !followUp) {
    if (hasCount) return finish({ kind: 'count_reports' });
    if (wantsList || s.has('what', 'which')) return finish({ kind: 'list_reports' });
  }
  if (
    hasReportNoun &&
    hasCount &&
    W.indexOf('reports') >= 0 &&
    W.indexOf('reports') <
      Math.max(
        W.findIndex((w) => FINDING_NOUNS.has(w)),
        99,
      ) &&
    !filter.reportName &&
    !reportHint &&
    (newParts || followUp)
  ) {
    const ri = W.indexOf('reports');
    if (W[ri - 1] === 'many' || W[ri - 1] === 'of') return finish({ kind: 'reports_with', ...counting() });
  }
  // A report named by part of its file name, with nothing else asked: its findings by severity.
  if (reportHint && !reportHint.loose && !hasCount && !hasFindingNoun && !followUp)
    return finish({ kind: 'breakdown', groupBy: 'severity', ...counting() });

  // "crits in juice shop?": a severity or format word is about the corpus even without a verb or noun.
  const corpusWord = !!(filter.severity || scope.severities || filter.format);
  if (!topical && !corpusWord) return { kind: 'out_of_scope', reason: 'unknown' };
  if (hasCount || wantsList || followUp || hasFindingNoun || newParts || corpusWord) {
    if (
      !hasCount &&
      !wantsList &&
      !followUp &&
      !hasFindingNoun &&
      !corpusWord &&
      !s.has('what', 'which', 'any')
    )
      return { kind: 'out_of_scope', reason: 'unknown' };
    return finish({ kind: 'count_findings', list: wantsList && !hasCount, ...counting() });
  }
  return { kind: 'out_of_scope', reason: 'unknown' };
}
