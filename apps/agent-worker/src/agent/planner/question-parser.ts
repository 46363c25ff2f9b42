import {
  LISTED_GROUPS_MAX,
  SEVERITIES,
  type ComputedScope,
  type FindingFilter,
} from '@corpus-chat/contracts';
import { namedWeaknessClasses } from '@corpus-chat/corpus-queries';
import { lex } from './question-lexer';
import { Scan } from './question-scan';
import { findTopic } from './question-topic';
import {
  findArchived,
  findEdited,
  findFormat,
  findGroupBy,
  findPresence,
  findReportHint,
  findStates,
  findTimePhrases,
  findTopN,
  isWriteRequest,
  leftovers,
} from './question-recognizers';
import { parseShare, shareWording } from './question-share';
import { readRussian } from './russian-vocabulary';
import { findComparison } from './scan-comparison';
import { findSeverityExpression } from './severity-expression';
import { mergeScopes } from './follow-up-scope';
import type { Counting, PlannedQuestion, PlannedScope, PreviousAnswer, Unapplied } from './question-plan';
import { V } from './vocabulary';

/** The longest message the planner reads (characters): a pasted document is no question, and slow to read. */
export const PLANNER_MAX_QUESTION_CHARS = 2000;

/**
 * Maps a question to a plan, deterministically; `previous` resolves a follow-up ("and how many of
 * those are high?"). Never invents or drops a filter: a part it cannot apply (a date, an unknown
 * word after "in") makes the plan `unsupported`, so the answer says so instead of counting something else.
 */
export function parseQuestion(question: string, previous: PreviousAnswer = {}): PlannedQuestion {
  if (question.length > PLANNER_MAX_QUESTION_CHARS) return { kind: 'too_long', length: question.length };
  // A Russian question is read in the vocabulary's English words; a refusal quotes the operator's own.
  const russian = readRussian(question);
  const plan = parseWords(russian?.text ?? question, previous);
  if (!russian || plan.kind !== 'unsupported') return plan;
  return { ...plan, parts: plan.parts.map((p) => ({ ...p, text: russian.original(p.text) })) };
}

/**
 * The questions of one message ("How many findings are in X? And how many of them are high?"):
 * cut after a question mark, or before "and"/"also"/"then" after a full stop or semicolon.
 */
export function splitQuestions(message: string): string[] {
  const parts = message
    .split(/(?<=\?)\s+(?=\S)|(?<=[.;])\s+(?=(?:and|also|then)\b)/i)
    .filter((p) => /\p{L}/u.test(p));
  return parts.length ? parts : [message];
}

function parseWords(text: string, previous: PreviousAnswer): PlannedQuestion {
  const question = shareWording(text);
  const s = new Scan(question, lex(question));
  const W = s.words;
  const comparison = findComparison(s);
  // "did operators change the severity": a question about past edits, read before the write check.
  const edited = comparison ? undefined : findEdited(s);
  if (isWriteRequest(s)) return { kind: 'out_of_scope', reason: 'write' };
  if (comparison) return comparison;
  if (s.hasAny(V.share)) return parseShare(s, previous, parseQuestion);

  const them = s.has('them', 'those', 'these');
  const hasFindingNoun = W.some((w) => V.finding.has(w) && w !== 'one' && w !== 'ones');
  const hasReportNoun = W.some((w) => V.report.has(w));
  const hasCount = s.has('many', 'much') || s.hasAny(V.count);
  const wantsList = s.hasAny(V.list) || (s.has('what', 'which') && s.has('are') && !hasCount);

  // Finding detail by id: "show finding 12", "finding #12", "describe #12".
  const byId = W.findIndex((w, i) => (w === 'finding' || w === 'id') && s.tokens[i + 1]?.kind === 'num');
  const hash = s.tokens.findIndex((t) => t.kind === 'hashnum');
  const detailWord = s.hasAny(V.list) || s.hasAny(V.detail) || s.has('finding');
  const idAt = byId >= 0 ? byId + 1 : hash >= 0 && detailWord ? hash : -1;
  if (!hasCount && idAt >= 0) return { kind: 'detail', id: s.tokens[idAt].value as number };

  // Detail by position in the previous answer: "show the first one", "details of the second finding".
  const ord = W.findIndex((w) => w in V.ordinals);
  // A question mark is a `⟨punct⟩` word: read by its token.
  const after = s.tokens[ord + 1]?.w === '?' ? '?' : W[ord + 1];
  const byPosition =
    V.ordinalNoun.has(after) || (W.length <= 8 && (!after || /^(\?|in|from|of|please)$/.test(after)));
  if (ord >= 0 && byPosition && !hasCount && !hasReportNoun && !s.hasAny(V.top) && !s.hasAny(V.time)) {
    const position = V.ordinals[W[ord]];
    if (previous.lastFindingIds?.length) return { kind: 'detail_ref', position };
    if (previous.lastGroups?.groups.length) return { kind: 'group_ref', position };
    return { kind: 'no_previous' };
  }

  const filter: FindingFilter = edited ? { edited } : {};
  const scope: ComputedScope = {};
  const exclude: FindingFilter = {};
  const unapplied: Unapplied[] = [];

  /** A part of the filter, or of the exclusions when negated. */
  const negatable = (part?: FindingFilter & { negated: boolean }) => {
    const { negated, ...value } = part ?? {};
    Object.assign(negated ? exclude : filter, value);
  };
  /** The value of the last of tokens [at, at + n) as `key`, negated with the words before them. */
  const tokenPart = (key: 'reportName' | 'reportId' | 'cwe', at: number, n = 1) =>
    negatable({ [key]: s.tokens[at + n - 1].value, negated: s.claim([at, at + n]) });
  // Report file names, CWE ids and report ids ("report 3"), each possibly negated.
  const reportTok = s.tokens.findIndex((t) => t.kind === 'report');
  const rid = W.findIndex((w, i) => V.report.has(w) && /^(num|hashnum)$/.test(s.tokens[i + 1]?.kind ?? ''));
  if (reportTok >= 0) tokenPart('reportName', reportTok);
  else if (rid >= 0 && !s.has('top')) tokenPart('reportId', rid, 2);
  const archived = findArchived(s);
  if (archived === 'only') unapplied.push(combination('only archived reports'));
  // "how many archived reports are there?" counts reports, which the planner only counts live.
  else if (archived && !hasFindingNoun) unapplied.push(combination('archived reports'));
  else if (archived) filter.includeArchived = true;
  negatable(findFormat(s));
  const cweTok = s.tokens.findIndex((t) => t.kind === 'cwe');
  if (cweTok >= 0) tokenPart('cwe', cweTok);

  unapplied.push(...findTimePhrases(s));
  const topN = findTopN(s);
  findStates(s).forEach(negatable);
  const severities = findSeverityExpression(s);
  if (severities?.length === 1) filter.severity = severities[0];
  else if (severities && severities.length < SEVERITIES.length) scope.severities = severities;
  const has = findPresence(s);
  // "CWE-79 findings without a CWE": the id already says which; "no CWE" with one cannot be counted.
  if (has && [filter, exclude].every((f) => f[has.key] === undefined)) scope.has = has;
  else if (has && !has.present) unapplied.push(combination(`no ${has.key === 'cwe' ? 'CWE' : 'verdict'}`));
  let reportHint = filter.reportName || filter.reportId !== undefined ? undefined : findReportHint(s);
  const groupBy = findGroupBy(s);
  const topic = findTopic(s);
  if (topic) {
    if (topic.unapplicable) unapplied.push(topic.unapplicable);
    else (topic.negated ? exclude : filter).text = topic.text;
  }
  const reportNamed = [filter, exclude].some((f) => f.reportName || f.reportId !== undefined);
  const rest = leftovers(s, reportNamed || !!reportHint);
  // "xss?", "how many of them are log4j?", "CVE-2021-44228 findings": one unknown word standing where a
  // topic stands is searched as text (the answer says so); elsewhere ("unique findings") it is not applied.
  // "log4j?": a message that is nothing but one word.
  const oneWord = s.tokens.filter((t) => t.kind !== 'punct').length === 1;
  const lone = rest.parts.length === 1 && !topic && !unapplied.length ? rest.parts[0] : undefined;
  const word = lone?.topicLike ? lone.text : '';
  const at = word ? s.tokens.findIndex((t) => t.orig === word) : -1;
  const weaknessClass = !!word && namedWeaknessClasses(word).length > 0;
  const plain = /^[\p{L}\p{N}][\p{L}\p{N}._+#-]*$/u.test(word);
  const term =
    at >= 0 && plain && (/\d/.test(word) || oneWord || (/^(are|is)$/.test(W[at - 1] ?? '') && them));
  // A weakness class's answer names the class it matched; only an unknown term needs the note.
  const searched = term && !weaknessClass ? word : undefined;
  if (weaknessClass || term) {
    filter.text = word;
    rest.parts = [];
  }
  // "cookies and XSS": a second topic next to the one found, which one text search cannot add.
  for (const p of rest.parts)
    unapplied.push(p.reason === 'unknown' && topic ? { ...p, reason: 'combination' } : p);
  reportHint ??= rest.hint;

  // Several exact counts combine one excluded part at a time, and "with(out) a CWE/verdict" on its own.
  const excluded = Object.keys(exclude) as (keyof FindingFilter)[];
  if (excluded.length + (reportHint?.negated ? 1 : 0) > 1)
    unapplied.push(combination('several exclusions at once'));
  if (excluded.length) scope.exclude = exclude;
  if (scope.has && (scope.severities || scope.exclude || reportHint?.negated))
    unapplied.push(presence(scope.has));
  const computed = Object.keys(scope).length ? scope : undefined;
  /** What this question named itself (a follow-up merges it into the previous answer's scope). */
  const asked: PlannedScope = { filter, ...(computed ? { scope: computed } : {}) };

  const wantsTop = s.hasAnyUnused(V.top) || topN !== undefined;
  // "Which of them has the most highs?" after a list or ranking: ranked among those listed, by the new words.
  const listed = previous.lastGroups;
  // A ranking keeps at most LISTED_GROUPS_MAX groups: that many may be a cut list, not "them".
  const cut = listed?.groups.length === LISTED_GROUPS_MAX;
  const ranked = cut ? undefined : (['report', 'cwe', 'format'] as const).find((k) => k === listed?.groupBy);
  if (listed && ranked && them && wantsTop && !hasReportNoun && !unapplied.length) {
    return {
      kind: 'top',
      groupBy: ranked,
      n: topN ?? 1,
      among: listed.groups.map((g) => (ranked === 'report' ? g.label : g.key)),
      ...asked,
      followUp: false,
      ...(reportHint ? { reportHint } : {}),
    };
  }
  // "does it have", "in it", "that report": the report the previous answer was about (its filter carries it).
  const previousReport = W.some(
    (w, i) => (w === 'it' && V.beforeIt.has(W[i - 1])) || (V.thisOne.has(w) && V.oneReport.has(W[i + 1])),
  );
  const referential =
    previousReport ||
    W.some((w) => V.reference.has(w) && w !== 'which' && w !== 'it' && w !== 'that' && w !== 'this') ||
    /^(and|also|what about|how about|only|now|then|of which|among|but|excluding|except|without|not|minus|apart from|other than|besides)\b/.test(
      W.filter((w) => !w.startsWith('⟨')).join(' '),
    ) ||
    (s.has('it') && !hasFindingNoun && !hasReportNoun);
  const newParts = Object.keys(filter).length > 0 || !!computed || !!(reportHint && !reportHint.loose);
  // "and in the fortify report?", "what about dd__flawfinder.sarif?": the previous question, another report.
  const isFollowUp = referential && (!hasFindingNoun || previousReport || them);
  // "How many findings does that report have?" after an answer about no one report: nothing to refer to.
  const last = previous.lastFilter;
  if (previousReport && last && !last.reportName && last.reportId === undefined && !last.scanner)
    return { kind: 'no_previous' };
  const unanchored = (!newParts && !hasFindingNoun && !hasReportNoun) || previousReport || them;
  if (isFollowUp && !last && unanchored) return { kind: 'no_previous' };
  const prior = isFollowUp && last ? { filter: last, scope: previous.lastScope } : undefined;
  const effective = prior ? mergeScopes(prior, asked) : asked;
  const followUp = isFollowUp && !!last;
  const topical = hasFindingNoun || hasReportNoun || newParts || followUp;
  const counting = (): Counting => ({
    ...effective,
    followUp,
    ...(prior ? { previous: prior, asked } : {}),
    ...(reportHint ? { reportHint } : {}),
    ...(searched ? { searched } : {}),
  });
  const finish = (plan: PlannedQuestion): PlannedQuestion => {
    if ((plan.kind === 'top' || plan.kind === 'breakdown' || plan.kind === 'reports_with') && plan.scope?.has)
      unapplied.push(presence(plan.scope.has));
    return unapplied.length ? { kind: 'unsupported', parts: unapplied, understood: plan } : plan;
  };

  // Overview: "give me an overview", "summarize the corpus".
  if (s.hasAny(V.overview) && !newParts && !groupBy && !hasCount) return finish({ kind: 'overview' });

  // "Which report has the most …", "top 3 reports by …", "most common CWEs".
  // "most common vulnerability": a frequency word right before a finding noun asks for the commonest title.
  const titleAsk =
    s.has('title', 'titles') ||
    W.some((w, i) => V.frequency.has(w) && V.finding.has(W[i + 1] ?? '') && !V.notTitle.has(W[i + 1]));
  const cweNamed = !hasReportNoun && W.some((w) => V.cwe.has(w) || w === 'weakness' || w === 'weaknesses');
  // What is ranked: the first of these the question names.
  const targets = { format: s.hasAny(V.formatNoun), cwe: cweNamed, title: titleAsk, report: hasReportNoun };
  const topTarget = (Object.keys(targets) as (keyof typeof targets)[]).find((k) => targets[k]);
  const rankedBy = W.some((w, i) => V.top.has(w) && /^(number|count|amount|total)$/.test(W[i + 1] ?? ''));
  if (wantsTop && topTarget && (s.has('which', 'what', 'top', 'most') || topN !== undefined || rankedBy)) {
    const plural = W.some((w) => V.pluralTarget.has(w));
    return finish({
      kind: 'top',
      groupBy: topTarget,
      n: topN ?? (plural && !s.has('has', 'is', 'was') ? 5 : 1),
      ...counting(),
    });
  }

  // A grouping; "by report" with nothing about findings may instead count or list the reports (below).
  const grouped = hasFindingNoun || followUp || s.has('breakdown', 'distribution') || groupBy !== 'report';
  if (groupBy && (grouped || (reportHint && !reportHint.loose)))
    return finish({ kind: 'breakdown', groupBy, ...counting() });

  // Reports: "how many reports (are there)", "list the reports", "how many reports have critical findings".
  if (hasReportNoun && !hasFindingNoun && !newParts && !followUp) {
    if (hasCount) return finish({ kind: 'count_reports' });
    if (wantsList || s.has('what', 'which')) return finish({ kind: 'list_reports' });
  }
  // "how many reports have …", "number of reports with …": reports counted, named before any finding noun.
  const ri = W.indexOf('reports');
  const firstFinding = W.findIndex((w) => V.finding.has(w));
  const reportsCounted = ri > 0 && (firstFinding < 0 || ri < firstFinding) && /^(many|of)$/.test(W[ri - 1]);
  if (reportsCounted && hasCount && !filter.reportName && !reportHint && (newParts || followUp))
    return finish({ kind: 'reports_with', ...counting() });
  // A report named by part of its file name, with nothing else asked: its findings by severity.
  if (reportHint && !reportHint.loose && !hasCount && !hasFindingNoun && !followUp)
    return finish({ kind: 'breakdown', groupBy: 'severity', ...counting() });

  // "crits in juice shop?": a severity or format word is about the corpus even without a verb or noun.
  const corpusWord = !!(filter.severity || scope.severities || filter.format || (filter.text && oneWord));
  const asks = hasCount || wantsList || followUp || hasFindingNoun || corpusWord;
  if ((asks && topical) || (newParts && s.has('what', 'which', 'any')))
    return finish({ kind: 'count_findings', list: wantsList && !hasCount, ...counting() });
  return { kind: 'out_of_scope', reason: 'unknown' };
}

/** "Findings with(out) a CWE id / verdict", which several exact counts cannot combine with other parts. */
const presence = (has: NonNullable<ComputedScope['has']>) =>
  combination(`findings ${has.present ? 'with' : 'without'} a ${has.key === 'cwe' ? 'CWE id' : 'verdict'}`);

/** A part the planner understands but cannot combine with the others into one exact count. */
const combination = (text: string): Unapplied => ({ text, reason: 'combination' });
