import {
  CorpusTools,
  type ToolExecution,
  defaultCorpusQueries,
  defaultReadOnly,
} from '@corpus-chat/corpus-queries';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import type { AssistantMessageMetadata } from '@corpus-chat/contracts';
import type { HistoryMessage } from '@corpus-chat/server-core';
import { PlannerRunner } from '../planner/planner-runner';
import { ScriptedOpenAiServer } from './scripted-openai-server';
import { encodeIntent, type ModelIntent, type ServerProfileName, type ServerQuirks } from './server-profiles';

export type { ModelIntent, ServerProfileName, ServerQuirks } from './server-profiles';

/** One tool call the planner made, as a model would send it, and the result text the model then sees. */
interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
  modelContent: string;
}

/** What the planner did for one operator message: its calls, its answer and the metadata it stored. */
interface PlannedTurn {
  calls: PlannedCall[];
  content: string;
  metadata: AssistantMessageMetadata;
}

/** The tool layer, recording each call the planner makes (name, arguments as passed, result text). */
class RecordingTools extends CorpusTools {
  readonly calls: PlannedCall[] = [];

  override async execute(name: string, rawArgs: unknown, signal?: AbortSignal): Promise<ToolExecution> {
    const exec = await super.execute(name, rawArgs, signal);
    this.calls.push({ name, arguments: rawArgs as Record<string, unknown>, modelContent: exec.modelContent });
    return exec;
  }
}

/** A chat-completions message as the worker sends it (only what the brain reads). */
interface RequestMessage {
  role: string;
  content?: string | { type: string; text?: string }[] | null;
  tool_calls?: unknown[];
}

/** Planned conversations kept by their operator messages, so a tool step and its answer step plan once. */
const PLAN_CACHE_SIZE = 256;

/**
 * A scripted model that decides like a competent one, for end-to-end tests of the model path: from
 * a chat-completions request alone it takes the operator's messages in order (every `user`
 * message), replays them through the built-in `PlannerRunner` on recording tools (each earlier
 * message with the planner's own stored metadata, as the worker keeps it, so follow-ups resolve),
 * and learns which tool calls answer the last message and the prose the planner writes from their
 * results. Step one (no `tool` message after the last `user` one) asks for those calls, all at
 * once (parallel calls, though a real model would first need `list_all_reports` to name a report
 * it resolved); step two answers with the prose, after checking that the `tool` results the request
 * carries are the ones the planner saw (else it answers, without a number, that they differ). A
 * question the planner answers without tools is answered in step one. Each step carries a short
 * reasoning without numbers, as a thinking model's would, which the profile puts on the wire.
 *
 * Planning is cached by the list of operator messages (a pure function of the request and the
 * corpus), so a follow-up's earlier turns are not re-planned at each step.
 */
export class PlannerBrain {
  private readonly plans = new LRUCache<string, Promise<PlannedTurn[]>>({ max: PLAN_CACHE_SIZE });

  constructor(private readonly dataSource: DataSource) {}

  /** The intent for one chat-completions request body (`messages` as the OpenAI API takes them). */
  async decide(body: { messages?: RequestMessage[] }): Promise<ModelIntent> {
    const messages = body.messages ?? [];
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    if (lastUser < 0) return { text: 'There is no question to answer.' };
    const operator = messages.filter((m) => m.role === 'user').map((m) => textOf(m.content));
    const turn = (await this.plan(operator)).at(-1)!;
    const results = messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
    if (!results.length) {
      if (!turn.calls.length)
        return {
          reasoning: 'No corpus tool answers this; I say what I can answer instead.',
          text: turn.content,
          finish: 'stop',
        };
      const names = [...new Set(turn.calls.map((c) => c.name))].join(' and ');
      return {
        reasoning: `The corpus tools answer this exactly: I call ${names}.`,
        toolCalls: turn.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
        finish: 'tool_calls',
      };
    }
    const seen = results.map((m) => textOf(m.content));
    const differs = turn.calls.findIndex((c, i) => c.modelContent !== seen[i]);
    if (differs >= 0 || seen.length !== turn.calls.length) {
      const which = differs >= 0 ? `the ${turn.calls[differs].name} result` : 'the number of results';
      return {
        text: `The tool results I received do not match the calls I made (${which} differs), so I cannot state a count.`,
        finish: 'stop',
      };
    }
    return {
      reasoning: 'The tool results hold the exact counts; I answer with them.',
      text: turn.content,
      finish: 'stop',
    };
  }

  /** The planner's turns for `operator` messages in order (cached per prefix). */
  private plan(operator: string[]): Promise<PlannedTurn[]> {
    const key = JSON.stringify(operator);
    let planned = this.plans.get(key);
    if (!planned) {
      planned = this.planUncached(operator);
      planned.catch(() => this.plans.delete(key));
      this.plans.set(key, planned);
    }
    return planned;
  }

  private async planUncached(operator: string[]): Promise<PlannedTurn[]> {
    const earlier = operator.length > 1 ? await this.plan(operator.slice(0, -1)) : [];
    const history: HistoryMessage[] = earlier.flatMap((t, i) => [
      { role: 'user' as const, content: operator[i], status: 'complete' as const, metadata: {} },
      { role: 'assistant' as const, content: t.content, status: 'complete' as const, metadata: t.metadata },
    ]);
    const tools = new RecordingTools(this.dataSource, defaultCorpusQueries, defaultReadOnly);
    const outcome = await new PlannerRunner(tools).run({
      chatId: 'brain',
      turnId: `brain-${operator.length}`,
      ownerId: 'brain',
      history,
      userMessage: operator.at(-1)!,
      signal: new AbortController().signal,
      emit: async () => undefined,
    });
    return [...earlier, { calls: tools.calls, content: outcome.content, metadata: outcome.metadata }];
  }
}

function textOf(content: RequestMessage['content']): string {
  if (typeof content === 'string') return content;
  return (content ?? []).map((p) => p.text ?? '').join('');
}

/** A running brain server: the base URL to give the worker, and the scripted server behind it. */
export interface BrainServer {
  /** `http://127.0.0.1:<port>/v1`, as the settings take it. */
  baseUrl: string;
  /** The scripted server that puts each decision on the wire; its `requests` record what the worker sent. */
  scripted: ScriptedOpenAiServer;
  brain: PlannerBrain;
  /** Every decision, in the order the requests arrived (before the profile put it on the wire). */
  intents: ModelIntent[];
  close(): Promise<void>;
}

/** Starts a `PlannerBrain` on `dataSource` speaking through server `profile` (with `quirks`). */
export async function startBrainServer(
  dataSource: DataSource,
  profile: ServerProfileName = 'openai',
  quirks?: ServerQuirks,
): Promise<BrainServer> {
  const brain = new PlannerBrain(dataSource);
  const scripted = await ScriptedOpenAiServer.start();
  scripted.profile = profile;
  const intents: ModelIntent[] = [];
  scripted.responder = async (req) => {
    try {
      const intent = await brain.decide(req.body);
      intents.push(intent);
      return encodeIntent(profile, intent, quirks);
    } catch (e) {
      return {
        kind: 'status',
        status: 500,
        body: { error: { message: `planner brain failed: ${(e as Error).message}` } },
      };
    }
  };
  return { baseUrl: scripted.baseUrl, scripted, brain, intents, close: () => scripted.close() };
}
