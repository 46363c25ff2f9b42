import type { AgentTurnContext, AgentTurnOutcome } from '@corpus-chat/server-core';
import type { FindingFilter, ToolArgsMap, ToolName } from '@corpus-chat/contracts';
import { lastAnswerState } from '../history';
import type { CorpusTools, ToolExecution, ToolSuccess } from '../tools/corpus-tools';
import { TurnRecorder } from '../turn-recorder';
import {
  breakdownAnswer,
  countAnswer,
  detailAnswer,
  md,
  NO_PREVIOUS_ANSWER,
  outOfScopeAnswer,
  overviewAnswer,
  reportCountAnswer,
  reportListAnswer,
  reportsWithAnswer,
  topAnswer,
} from './answer-writer';
import { parseQuestion, type PlannedQuestion } from './question-parser';

/** Name stored as the answer's `model` for the built-in planner. */
export const BUILTIN_MODEL = 'builtin';

/** Rows a count answer asks for (so "show the first one" has ids to refer to). */
const COUNT_ROWS = 10;
const LIST_ROWS = 20;

/** Adapts a planner topic before it reaches the tool (e.g. correcting a misspelt weakness class name). */
export type TopicNormaliser = (topic: string) => string;

/**
 * The built-in planner (`builtin` back end): no model. It parses the question deterministically
 * (`parseQuestion`), calls the same read-only tools a model would, through the same `TurnRecorder`
 * (so `tool.call`/`tool.result` events and stored metadata are identical), and writes the answer
 * from the tool results only: every count it states is a tool's exact total, with the filter named.
 * The answer is streamed as several `text.delta` events. Follow-ups resolve against the previous
 * answer's `lastFilter`/`lastFindingIds`. Questions it cannot map get a short list of what it can
 * answer and no numbers.
 */
export class PlannerRunner {
  constructor(
    private readonly tools: CorpusTools,
    private readonly normaliseTopic: TopicNormaliser = (t) => t,
  ) {}

  async run(ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    const previous = lastAnswerState(ctx.history);
    const recorder = new TurnRecorder(ctx, this.tools, previous);
    const plan = this.normalise(parseQuestion(ctx.userMessage, previous));
    const answer = await this.answer(plan, recorder, previous.lastFindingIds ?? []);
    for (const piece of splitForStreaming(answer)) await recorder.say(piece);
    return { content: recorder.content, metadata: recorder.metadata(BUILTIN_MODEL) };
  }

  private normalise(plan: PlannedQuestion): PlannedQuestion {
    if ('filter' in plan && plan.filter.text) return { ...plan, filter: { ...plan.filter, text: this.normaliseTopic(plan.filter.text) } };
    return plan;
  }

  private async answer(plan: PlannedQuestion, rec: TurnRecorder, lastIds: number[]): Promise<string> {
    switch (plan.kind) {
      case 'out_of_scope':
        return outOfScopeAnswer(plan.reason);
      case 'no_previous':
        return NO_PREVIOUS_ANSWER;
      case 'count_reports': {
        const r = await call(rec, 'list_all_reports', {});
        return r.ok ? reportCountAnswer(r.result) : failed(r);
      }
      case 'list_reports': {
        const r = await call(rec, 'list_all_reports', {});
        return r.ok ? reportListAnswer(r.result) : failed(r);
      }
      case 'overview': {
        const r = await call(rec, 'get_corpus_overview', {});
        return r.ok ? overviewAnswer(r.result) : failed(r);
      }
      case 'count_findings': {
        const r = await call(rec, 'search_findings', { ...plan.filter, limit: plan.list ? LIST_ROWS : COUNT_ROWS });
        if (!r.ok) return failed(r);
        const missing = unknownReport(plan.filter, r.result.filter);
        return (missing ? `${missing}\n\n` : '') + countAnswer(r.result, { list: plan.list, followUp: plan.followUp });
      }
      case 'top': {
        const r = await call(rec, 'count_findings_by', { groupBy: plan.groupBy, filter: plan.filter });
        return r.ok ? topAnswer(r.result, plan.n) : failed(r);
      }
      case 'breakdown': {
        const r = await call(rec, 'count_findings_by', { groupBy: plan.groupBy, filter: plan.filter });
        return r.ok ? breakdownAnswer(r.result) : failed(r);
      }
      case 'reports_with': {
        const r = await call(rec, 'count_findings_by', { groupBy: 'report', filter: plan.filter });
        return r.ok ? reportsWithAnswer(r.result) : failed(r);
      }
      case 'detail':
      case 'detail_ref': {
        let id: number;
        if (plan.kind === 'detail') id = plan.id;
        else {
          const at = plan.position < 0 ? lastIds.length + plan.position : plan.position;
          if (at < 0 || at >= lastIds.length) {
            return `The previous answer showed ${lastIds.length === 1 ? 'one finding' : 'fewer findings than that'}; ask for a finding by its id, for example "show finding" followed by the id.`;
          }
          id = lastIds[at];
        }
        const r = await call(rec, 'finding_detail', { id });
        if (!r.ok) return failed(r);
        return r.result.found ? detailAnswer(r.result.finding) : `There is no finding with id ${id} (finding_detail found none).`;
      }
    }
  }
}

function call<N extends ToolName>(rec: TurnRecorder, name: N, args: ToolArgsMap[N]): Promise<ToolSuccess<N> | Extract<ToolExecution, { ok: false }>> {
  return rec.callTool(name, args) as Promise<ToolSuccess<N> | Extract<ToolExecution, { ok: false }>>;
}

function failed(r: Extract<ToolExecution, { ok: false }>): string {
  return `I could not get that number: ${md(r.error)}`;
}

/** A note when the question named a report the query layer did not find. */
function unknownReport(asked: FindingFilter, applied: { reportFilename?: string }): string | undefined {
  if (asked.reportName && !applied.reportFilename) return `Note: no report named ${md(asked.reportName)} was found, so nothing matches it.`;
  return undefined;
}

/**
 * Cuts an answer into streaming pieces (line by line, long lines at sentence or word boundaries,
 * about 60 characters each) so it arrives as several `text.delta` events like a model's would.
 * Joining the pieces gives back the answer exactly.
 */
export function splitForStreaming(answer: string, size = 60): string[] {
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
