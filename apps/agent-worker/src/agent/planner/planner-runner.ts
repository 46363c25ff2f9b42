import type { CorpusTools } from '@corpus-chat/corpus-queries';
import type { AgentTurnContext, AgentTurnOutcome } from '@corpus-chat/server-core';
import {
  LISTED_GROUPS_MAX,
  type AssistantMessageMetadata,
  type CountGroup,
  type ReportFormat,
  type FindingFilter,
  type GroupByKey,
  type Severity,
  type TurnAttachment,
} from '@corpus-chat/contracts';
import { lastAnswerState, type LastAnswerState } from '../history';
import { TurnRecorder } from '../turn-recorder';
import { verifyNumbers } from '../verification/number-provenance';
import { ToolFailed, call, callOrFail, countBy, scopedCount, scopedGroups } from './computed-counts';
import { answerWriter, rankedGroups, type AnswerWriter } from './answer-writer';
import { attachmentQuestion, scopeToReport } from './attachment-scope';
import { PLANNER_MAX_QUESTION_CHARS, parseQuestion, splitQuestions } from './question-parser';
import { mergeFilters } from './follow-up-scope';
import type { CountingPlan, PlannedQuestion, PlannedScope } from './question-plan';
import { matchReportNames, matchScanners } from './report-names';
import { shareFault } from './question-share';
import { defaultTopicNormaliser } from './vocabulary';

/** Name stored as the answer's `model` for the built-in planner. */
export const BUILTIN_MODEL = 'builtin';

/**
 * Rows a count answer asks for and lists, so "show the first one" (or "the last one") refers to a
 * finding the operator saw, and the tool card's "N of TOTAL" matches the list.
 */
const COUNT_ROWS = 5;
const LIST_ROWS = 20;

/**
 * The built-in planner (`builtin` back end): no model. It parses each question deterministically,
 * calls the read-only tools through a `TurnRecorder` as a model would, and answers from their
 * results only: every number is a tool's exact total or a sum/difference of exact totals it names.
 * A part it cannot apply (a date, an ambiguous report name) gets no number but says why.
 */
export class PlannerRunner {
  constructor(private readonly tools: CorpusTools) {}

  async run(ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    const start = lastAnswerState(ctx.history);
    const rec = new TurnRecorder(ctx, this.tools, start);
    const file = ctx.attachment;
    const about = file ? attachmentQuestion(ctx.userMessage) : null;
    const questions = about ? [about.rest] : splitQuestions(ctx.userMessage);
    // Answers are written in the turn's language, whatever language the question was asked in.
    const w = answerWriter(ctx.language);
    let previous: LastAnswerState = start;
    let metadata = rec.metadata(BUILTIN_MODEL);
    const answers: string[] = [];
    // What the answers cite besides the tool results: the filter a follow-up's note names, the
    // length and limit a too-long message is told, the attached file.
    const last = { lastFilter: start.lastFilter, lastScope: start.lastScope ?? null };
    const cited: [string, unknown][] = start.lastFilter ? [['previous answer', last]] : [];
    if (about) cited.push(['attachment', file]);
    // A message of several questions: each answered in order, a later one resolving "them"
    // against the earlier.
    for (const question of questions) {
      const plan = normalise(parseQuestion(question, previous));
      const limit = { maxQuestionCharacters: PLANNER_MAX_QUESTION_CHARS };
      if (plan.kind === 'too_long') cited.push(['planner', { messageCharacters: plan.length, ...limit }]);
      const t: Turn = { rec, w, previous, state: { lastScope: previous.lastScope }, lead: [] };
      const answer = await (
        file && about ? aboutAttachment(file, about.overview, plan, t) : answerPlan(plan, t)
      ).catch((e: unknown) => {
        if (e instanceof ToolFailed) return w.say('failed', { error: e.failure.error });
        throw e;
      });
      const text = [...t.lead, answer].join('\n\n');
      answers.push(questions.length > 1 ? `> ${question.trim()}\n\n${text}` : text);
      metadata = leftState(rec.metadata(BUILTIN_MODEL), t.state);
      previous = { ...metadata, ...(metadata.lastFilter ? {} : { lastFilter: previous.lastFilter }) };
    }
    for (const piece of splitForStreaming(answers.join('\n\n'))) await rec.say(piece);
    const facts = cited.map(([name, fact]) => ({ name, args: {}, content: JSON.stringify(fact) }));
    const evidence = [...rec.evidence, ...facts];
    metadata.verification = verifyNumbers({ answer: rec.content, userMessage: ctx.userMessage, evidence });
    return { content: rec.content, metadata };
  }
}

/** `plan` with its topics (searched text) corrected where misspelt. */
function normalise(plan: PlannedQuestion): PlannedQuestion {
  if (!('filter' in plan)) return plan;
  const fix = (f: FindingFilter) => (f.text ? { ...f, text: defaultTopicNormaliser(f.text) } : f);
  const exclude = plan.scope?.exclude;
  return {
    ...plan,
    filter: fix(plan.filter),
    ...(exclude ? { scope: { ...plan.scope, exclude: fix(exclude) } } : {}),
  };
}

/** What answering one question of the turn works with, and what it leaves. */
interface Turn {
  rec: TurnRecorder;
  w: AnswerWriter;
  /** The previous answer's follow-up state (none for a question about an attachment). */
  previous: LastAnswerState;
  /** What the answer leaves for follow-ups in place of what its tool calls left (unset: as they left it). */
  state: LastAnswerState;
  /** Lines the answer starts with, kept when a tool fails (the attached file, a text searched). */
  lead: string[];
}

type Answer<P extends PlannedQuestion> = (plan: P, t: Turn) => string | Promise<string>;

/** How each kind of plan is answered. */
const ANSWERS: { [K in PlannedQuestion['kind']]: Answer<Extract<PlannedQuestion, { kind: K }>> } = {
  out_of_scope: (plan, { w }) => w.say(`outOfScope.${plan.reason}`),
  too_long: (plan, { w }) => w.say('tooLong', { length: plan.length, max: PLANNER_MAX_QUESTION_CHARS }),
  no_previous: (_, { w }) => w.say('noPrevious'),
  unsupported: (plan, { w }) => w.unsupported(plan.parts, plan.understood),
  count_reports: async (_, { rec, w }) =>
    w.reportCount((await callOrFail(rec, 'list_all_reports', {})).result),
  list_reports: async (_, { rec, state, w }) => {
    const { result } = await callOrFail(rec, 'list_all_reports', {});
    // "Which of them has the most highs?", "the second one": every report listed is the follow-up list.
    state.lastGroups = {
      groupBy: 'report',
      groups: result.map((x) => ({ key: String(x.id), label: x.filename })),
    };
    // No finding listed: an older answer's findings are no longer "the first one" (the reports are).
    state.lastFindingIds = [];
    return w.reportList(result);
  },
  overview: async (_, { rec, w }) => w.overview((await callOrFail(rec, 'get_corpus_overview', {})).result),
  compare: async (plan, { rec, w }) => {
    const { baseline, report, ordered } = plan;
    const r = await call(rec, 'compare_reports', { baseline, ...(report ? { report } : {}), ordered });
    return r.ok ? w.comparison(plan, r.result) : w.say('comparisonFailed', { error: r.error });
  },
  share: counting,
  count_findings: counting,
  top: counting,
  breakdown: counting,
  reports_with: counting,
  detail,
  detail_ref: detail,
  group_ref: groupRef,
};

const answerPlan = async (plan: PlannedQuestion, t: Turn) =>
  (ANSWERS[plan.kind] as Answer<PlannedQuestion>)(plan, t);

/**
 * A question about the attached file: an overview by severity of the report it became, or the rest
 * of the question within that report; a file not imported (yet) gets the reason, no number.
 */
async function aboutAttachment(a: TurnAttachment, overview: boolean, plan: PlannedQuestion, t: Turn) {
  const { rec, state, w } = t;
  if (a.status !== 'ready' || a.reportId === null) return w.say('attachment.notReady', { ...a });
  t.lead.push(w.say('attachment.heading', { file: a.file, report: `${a.reportId}`, duplicate: a.duplicate }));
  if (overview || plan.kind === 'overview') {
    const r = await countBy(rec, 'severity', { reportId: a.reportId });
    state.lastFindingIds = [];
    state.lastFilter = r.filter;
    return w.breakdown(r);
  }
  return answerPlan(scopeToReport(plan, a.reportId), { ...t, previous: {} });
}

/** A finding by its id, or by its position in the previous answer's list (negative: from the end). */
async function detail(plan: Extract<PlannedQuestion, { kind: 'detail' | 'detail_ref' }>, t: Turn) {
  const { rec, state, w, previous } = t;
  const listed = previous.lastFindingIds ?? [];
  const id = plan.kind === 'detail' ? plan.id : listed.at(plan.position);
  if (id === undefined) return w.say('fewerFindings', { shown: listed.length });
  const { result } = await callOrFail(rec, 'finding_detail', { id });
  if (!result.found) return w.say('noSuchFinding', { id: `${id}` });
  // "How many findings does that report have?": the finding's report, within the list it was picked from.
  const reportName = result.finding.reportFilename;
  const listedUnder = plan.kind === 'detail_ref' ? (previous.lastFilter ?? {}) : {};
  if (reportName) state.lastFilter = mergeFilters(listedUnder, { reportName });
  return w.detail(result.finding);
}

/**
 * "Show the second one" after a ranking: that group's findings within the ranking's filter, listed;
 * the groups stay the follow-up list for "and the third one?". A title is no filter: declined.
 */
async function groupRef(plan: { position: number }, t: Turn): Promise<string> {
  const { previous, state, w } = t;
  const listed = previous.lastGroups;
  if (!listed) return w.say('noPrevious');
  const g = listed.groups.at(plan.position);
  if (!g) return w.say('fewerGroups', { listed: listed.groups.length, groupBy: listed.groupBy });
  const parts: Partial<Record<GroupByKey, FindingFilter>> = {
    report: { reportName: g.label },
    severity: { severity: g.key as Severity },
    ...(g.key === 'none' ? {} : { cwe: { cwe: Number(g.key) }, format: { format: g.key as ReportFormat } }),
  };
  const part = parts[listed.groupBy];
  if (!part) return w.say('titleNotFilter', { label: g.label });
  state.lastGroups = listed;
  t.lead.push(w.say('fromRanking', { label: g.label }));
  const filter = mergeFilters(previous.lastFilter ?? {}, part);
  return count({ kind: 'count_findings', list: true, filter, followUp: true, scope: previous.lastScope }, t);
}

/** A counting plan, once the report it names by part of its file name is resolved. */
async function counting(plan: CountingPlan, t: Turn): Promise<string> {
  const resolved = await resolveReportHint(plan, t);
  if (typeof resolved === 'string') return resolved;
  if (resolved.kind === 'share') return share(resolved, t);
  if (plan.searched) t.lead.push(t.w.say('searchedText', { term: plan.searched }));
  return t.w.withFollowUpNote(resolved, await count(resolved, t));
}

/** A report named by part of its file name, resolved: one match scopes (or excludes) it, else no number. */
async function resolveReportHint(plan: CountingPlan, { rec, w }: Turn): Promise<CountingPlan | string> {
  const hint = plan.reportHint;
  if (!hint) return plan;
  const archived = plan.filter.includeArchived ? { includeArchived: true } : {};
  const r = await callOrFail(rec, 'list_all_reports', archived);
  const filenames = r.result.map((x) => x.filename);
  const matches = matchReportNames(hint.text, filenames);
  // The plan and the follow-up's own words (`asked`) changed alike.
  const both = (f: (p: PlannedScope) => PlannedScope) =>
    ({ ...plan, ...f(plan), ...(plan.asked ? { asked: f(plan.asked) } : {}) }) as CountingPlan;
  const narrowed = (part: FindingFilter) => both((p) => ({ ...p, filter: mergeFilters(p.filter, part) }));
  // "findings from semgrep": a scanner, when it names no single report ("the semgrep report" lists them).
  const scanners =
    matches.length === 1 || hint.negated || !hint.loose ? [] : matchScanners(hint.text, r.result);
  if (scanners.length) return narrowed({ scanner: scanners[0] });
  if (matches.length !== 1) return w.reportHint(hint, matches);
  const reportName = matches[0];
  if (!hint.negated) return narrowed({ reportName });
  if (plan.scope?.exclude || plan.filter.reportName || plan.filter.reportId !== undefined)
    return w.unsupported([{ text: hint.text, reason: 'combination' }], plan);
  return both((p) => ({ ...p, scope: { ...(p.scope ?? {}), exclude: { reportName } } }));
}

/** A share: the part's exact count over the whole's, both from search_findings. */
async function share(plan: Extract<CountingPlan, { kind: 'share' }>, t: Turn): Promise<string> {
  const { rec, state, w } = t;
  // The keys the report hint's resolution added (a report name or a scanner) scope the whole too,
  // unless they are the asked part.
  const hinted = plan.hintInWhole
    ? (['reportName', 'scanner'] as const).filter((k) => plan.filter[k] && !plan.whole[k])
    : [];
  const whole: FindingFilter = {
    ...plan.whole,
    ...Object.fromEntries(hinted.map((k) => [k, plan.filter[k]])),
  };
  const fault = plan.scope
    ? 'a computed scope'
    : shareFault(plan.filter, whole, [...plan.attached, ...hinted]);
  if (fault) return w.unsupported([{ text: fault, reason: 'combination' }], plan);
  const part = await callOrFail(rec, 'search_findings', { ...plan.filter, limit: COUNT_ROWS });
  const all = await callOrFail(rec, 'search_findings', { ...whole, limit: 0 });
  state.lastFilter = part.filter;
  state.lastFindingIds = part.findingIds ?? [];
  return w.share(part.result, all.result);
}

/** Answers a counting plan: one tool call when the filter says it all, else exact counts combined. */
async function count(plan: Exclude<CountingPlan, { kind: 'share' }>, t: Turn): Promise<string> {
  const { rec, state, w } = t;
  const scope = plan.scope && Object.keys(plan.scope).length ? plan.scope : undefined;
  state.lastScope = scope;
  // A count that lists no finding leaves nothing for "show the first one" (not an older answer's list).
  state.lastFindingIds = [];
  if (plan.kind === 'count_findings') {
    if (!scope) {
      const limit = plan.list ? LIST_ROWS : COUNT_ROWS;
      const r = await callOrFail(rec, 'search_findings', { ...plan.filter, limit });
      state.lastFindingIds = r.findingIds ?? [];
      return w.count(r.result);
    }
    const c = await scopedCount(rec, plan.filter, scope);
    state.lastFilter = plan.filter;
    return w.scopedCount(c) + (plan.list ? `\n\n${w.say('listOneSeverity')}` : '');
  }
  const groupBy = plan.kind === 'reports_with' ? 'report' : plan.groupBy;
  const counted = scope
    ? await scopedGroups(rec, groupBy, plan.filter, scope)
    : await countBy(rec, groupBy, plan.filter);
  // "Which of them …": only the groups listed before rank (reports by file name).
  const among = plan.kind === 'top' ? plan.among : undefined;
  const listedBefore = (g: CountGroup) => among!.includes(groupBy === 'report' ? g.label : g.key);
  const r = among ? { ...counted, groups: counted.groups.filter(listedBefore) } : counted;
  state.lastFilter = plan.filter;
  const listed =
    plan.kind === 'top'
      ? rankedGroups(r, plan.n)
      : plan.kind === 'breakdown' && plan.groupBy !== 'severity' && plan.groupBy !== 'verdict'
        ? r.groups
        : [];
  // "Which report has the most …?" then "how many high does it have?": the follow-up is about that report.
  if (plan.kind === 'top' && plan.n === 1 && groupBy === 'report' && listed.length === 1)
    state.lastFilter = mergeFilters(plan.filter, { reportName: listed[0].label });
  if (listed.length)
    state.lastGroups = {
      groupBy: r.groupBy,
      groups: listed.slice(0, LISTED_GROUPS_MAX).map(({ key, label }) => ({ key, label })),
    };
  if (plan.kind === 'top') return w.top(r, plan.n, scope);
  if (plan.kind === 'breakdown') return w.breakdown(r, scope);
  return w.reportsWith(r, scope);
}

/** `metadata` with what the answer leaves for follow-ups (`state`) in place of the last tool call's. */
const leftState = (metadata: AssistantMessageMetadata, state: LastAnswerState): AssistantMessageMetadata => ({
  ...metadata,
  ...(state.lastFilter ? { lastFilter: state.lastFilter } : {}),
  ...(state.lastScope && Object.keys(state.lastScope).length ? { lastScope: state.lastScope } : {}),
  ...(state.lastFindingIds ? { lastFindingIds: state.lastFindingIds } : {}),
  ...(state.lastGroups?.groups.length ? { lastGroups: state.lastGroups } : {}),
});

/**
 * Cuts an answer into streaming pieces (line by line, long lines at sentence or word boundaries,
 * about 60 characters each) so it arrives as several `text.delta` events like a model's would.
 * Joining the pieces gives back the answer exactly.
 */
function splitForStreaming(answer: string, size = 60): string[] {
  const pieces: string[] = [];
  for (const line of answer.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    let rest = line;
    while (rest.length > size) {
      let cut = rest.lastIndexOf(' ', size);
      if (cut <= 0) cut = size;
      pieces.push(rest.slice(0, cut + 1));
      rest = rest.slice(cut + 1);
    }
    if (rest) pieces.push(rest);
  }
  return pieces;
}
