import {
  type CorpusTools,
  CorpusUnavailableError,
  isToolName,
  type ToolExecution,
  shownToolName,
} from '@corpus-chat/corpus-queries';
import {
  REASONING_MAX_CHARS,
  type AssistantMessageMetadata,
  type FindingFilter,
  type ModelRequestUsage,
  type StoredToolCall,
} from '@corpus-chat/contracts';
import { type AgentTurnContext, inSpan, metrics, sleep } from '@corpus-chat/server-core';
import type { ProvenanceEvidence } from './verification/number-provenance';
import { ProgressMeter } from './model/progress-meter';
import { tryJson } from './model/tool-call-json';

/**
 * One turn's bookkeeping, shared by the planner and the model back end: runs tool calls with their
 * events, streams text, and builds the stored `AssistantMessageMetadata` (follow-up state carried
 * over when this turn set none).
 */
export class TurnRecorder {
  private readonly calls: StoredToolCall[] = [];
  private readonly results: ProvenanceEvidence[] = [];
  private lastFilter?: FindingFilter;
  private lastFindingIds?: number[];
  private text = '';
  private seq = 0;
  private readonly reasoning: string[] = [];
  private readonly usage: ModelRequestUsage[] = [];
  /** The turn's `turn.progress` events (the model back end feeds it each streamed chunk). */
  readonly progress: ProgressMeter;

  constructor(
    private readonly ctx: Pick<AgentTurnContext, 'emit' | 'signal' | 'turnId'>,
    private readonly tools: CorpusTools,
    previous?: { lastFilter?: FindingFilter; lastFindingIds?: number[] },
  ) {
    this.lastFilter = previous?.lastFilter;
    this.lastFindingIds = previous?.lastFindingIds;
    this.progress = new ProgressMeter((event) => ctx.emit(event));
  }

  nextCallId(): string {
    this.seq += 1;
    return `${this.ctx.turnId.slice(0, 8)}-call-${this.seq}`;
  }

  /**
   * Runs one tool call between `tool.call` and `tool.result` and records it; an invented tool name
   * is a failed call under its `shownToolName`, so the operator sees what the model tried.
   */
  async callTool(name: string, rawArgs: unknown, callId = this.nextCallId()): Promise<ToolExecution> {
    this.ctx.signal.throwIfAborted();
    const shownName = shownToolName(name);
    const args = parseForDisplay(rawArgs);
    await this.ctx.emit({ type: 'tool.call', callId, name: shownName, args });
    const end = metrics.toolQuery.startTimer({ tool: isToolName(name) ? name : 'unknown' });
    const exec = await inSpan('tool.query', { 'corpus_chat.tool': shownName }, () =>
      this.executeWhileReachable(name, rawArgs),
    );
    end({ outcome: exec.ok ? 'ok' : 'error' });
    const shownArgs = exec.ok ? exec.args : args;
    const outcome = { ok: exec.ok, summary: exec.summary, ...(exec.data ? { data: exec.data } : {}) };
    await this.ctx.emit({ type: 'tool.result', callId, name: shownName, ...outcome });
    this.calls.push({ callId, name: shownName, args: shownArgs, ...outcome });
    this.results.push({ name: shownName, args: shownArgs, content: exec.modelContent });
    if (exec.ok) {
      if (exec.filter) this.lastFilter = exec.filter;
      if (exec.findingIds?.length && exec.name !== 'finding_detail') this.lastFindingIds = exec.findingIds;
    }
    return exec;
  }

  /**
   * Runs a tool call, retrying while Postgres is unreachable (200 ms doubling to 5 s) until the turn
   * stops or times out (`turn.error` TIMEOUT): never an answer without the data.
   */
  private async executeWhileReachable(name: string, rawArgs: unknown): Promise<ToolExecution> {
    const signal = this.ctx.signal;
    for (let delay = 200; ; delay = Math.min(delay * 2, 5000)) {
      try {
        return await this.tools.execute(name, rawArgs, signal);
      } catch (e) {
        if (!(e instanceof CorpusUnavailableError)) throw e;
        await sleep(delay, signal);
      }
    }
  }

  /** Emits one text delta and appends it to the answer. Empty strings are skipped. */
  async say(text: string): Promise<void> {
    if (!text) return;
    this.ctx.signal.throwIfAborted();
    this.text += text;
    await this.ctx.emit({ type: 'text.delta', text });
  }

  /** Everything said so far (the concatenation of the emitted deltas). */
  get content(): string {
    return this.text;
  }

  /** Cuts the answer back to `length` characters and tells the client (`text.reset`). */
  async reset(length: number, reason: 'reasoning' | 'tool_call' | 'reask'): Promise<void> {
    if (length >= this.text.length) return;
    this.ctx.signal.throwIfAborted();
    this.text = this.text.slice(0, Math.max(0, length));
    await this.ctx.emit({ type: 'text.reset', length: this.text.length, reason });
  }

  /** Keeps the model's reasoning of one step (stored in the metadata, never in the answer). */
  addReasoning(text: string): void {
    if (text.trim()) this.reasoning.push(text.trim());
  }

  addUsage(usage: ModelRequestUsage): void {
    this.usage.push(usage);
  }

  /** Each tool call of this turn, failed ones included, with the JSON text its result gave the model. */
  get evidence(): readonly ProvenanceEvidence[] {
    return this.results;
  }

  metadata(model: string): AssistantMessageMetadata {
    return {
      toolCalls: [...this.calls],
      ...(this.lastFilter ? { lastFilter: this.lastFilter } : {}),
      ...(this.lastFindingIds?.length ? { lastFindingIds: this.lastFindingIds } : {}),
      model,
      ...(this.reasoning.length ? { reasoning: boundedReasoning(this.reasoning.join('\n\n')) } : {}),
      ...(this.usage.length ? { modelRequests: [...this.usage] } : {}),
    };
  }
}

/**
 * A model's raw arguments as a card shows them: parsed when they are JSON text, kept as text
 * otherwise; over `DISPLAY_ARGS_MAX` characters (as JSON), the start of their JSON text.
 */
function parseForDisplay(raw: unknown): unknown {
  const value = typeof raw === 'string' ? tryJson(raw) : (raw ?? {});
  if (typeof raw === 'string' && value === undefined) return cutText(raw, DISPLAY_ARGS_MAX);
  // A model can send arguments of any size: over the bound, the card shows the start of their JSON.
  const json = JSON.stringify(value) ?? '';
  return json.length > DISPLAY_ARGS_MAX ? cutText(json, DISPLAY_ARGS_MAX) : value;
}

/** Reasoning over `REASONING_MAX_CHARS`: its start and its end, where the conclusion usually is. */
function boundedReasoning(text: string): string {
  if (text.length <= REASONING_MAX_CHARS) return text;
  const half = Math.floor((REASONING_MAX_CHARS - 5) / 2);
  return `${text.slice(0, half)}\n[…]\n${text.slice(-half)}`;
}

/** Characters of a failed call's arguments kept for its card and the stored answer. */
const DISPLAY_ARGS_MAX = 2000;

/** `s` cut to at most `max` code points, ending in "…" when cut. */
function cutText(s: string, max: number): string {
  if (s.length <= max) return s;
  const points = Array.from(s);
  return points.length > max ? `${points.slice(0, max).join('')}…` : s;
}
