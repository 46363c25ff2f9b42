import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { TurnErrorCode } from '@corpus-chat/contracts';
import type { ModelSettings } from '@corpus-chat/corpus-queries';
import { AgentTurnError, connectionFailure, turnTrace, type AgentTurnContext, type AgentTurnOutcome } from '@corpus-chat/server-core';
import type { AgentConfig } from '../agent.config';
import { buildModelContext } from '../context/context-builder';
import { buildSystemPrompt } from '../context/system-prompt';
import { TOKENS_PER_MESSAGE, countMessagesTokens, countToolsTokens, tokensWithin } from '../context/token-counter';
import { lastAnswerState } from '../history';
import type { CorpusTools } from '../tools/corpus-tools';
import { TurnRecorder } from '../turn-recorder';
import { modelFetch, safeServerUrl } from './model-http';
import { ToolCallAssembler, type AssembledToolCall } from './tool-call-assembler';

/** Why one model request failed, and whether one retry may help. */
export class ModelRequestError extends Error {
  constructor(
    readonly code: TurnErrorCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ModelRequestError';
  }
}

/** What one streamed model step produced. */
interface StepResult {
  text: string;
  toolCalls: AssembledToolCall[];
  finishReason: string | null;
}

/** Creates the `openai` client for a server; replaceable in tests. */
export type OpenAiClientFactory = (settings: ModelSettings, config: AgentConfig) => OpenAI;

/** Clients by server, key and timeout: a turn reuses its server's client (and its connections). */
const clients = new LRUCache<string, OpenAI>({ max: 16 });

/**
 * The client for an OpenAI-compatible server: no SDK retries (the runner retries once itself), the
 * SDK's `timeout` (time to response headers) just above the first-token timeout, and `modelFetch`,
 * which lifts undici's 300 s header/body limits so the agent's own timers decide. One client per
 * (base URL, API key, timeout), kept for the process (at most 16), instead of one per turn: a
 * settings change makes a new key, so the next turn uses the new server.
 */
export const defaultClientFactory: OpenAiClientFactory = (settings, config) => {
  const apiKey = settings.apiKey || 'not-needed'; // Ollama, vLLM and llama.cpp accept any key; the SDK insists on one.
  const timeout = config.firstTokenTimeoutMs + 1000;
  const key = JSON.stringify([settings.baseUrl ?? null, apiKey, timeout]);
  let client = clients.get(key);
  if (!client) {
    client = new OpenAI({ baseURL: settings.baseUrl ?? undefined, apiKey, maxRetries: 0, timeout, fetch: modelFetch });
    clients.set(key, client);
  }
  return client;
};

/**
 * The agent's tool loop against an OpenAI-compatible chat-completions server (Ollama, vLLM,
 * llama.cpp server, OpenAI), streaming with `tools`.
 *
 * Per turn: builds the context (system prompt, tool schemas, the recent prose turns that fit the
 * token budget, the new message), then runs up to `maxSteps` model requests. Each request streams
 * text deltas as they arrive and reassembles tool calls; each tool call runs through the read-only
 * tool layer with `tool.call`/`tool.result` events, and its result (or the error telling the model
 * what was wrong with its arguments) goes back to the model in the next step. Assistant tool calls
 * and their results are only ever sent together, within the turn; the stored history is prose.
 *
 * Failures: a request that fails before streaming anything (connection refused, 5xx, 429, a
 * malformed stream or tool call) is retried once after `retryDelayMs`; then, or for a 4xx, a
 * timeout or a failure after text was streamed, the turn ends with `AgentTurnError` naming the
 * server and model. `ctx.signal` aborts the in-flight request (closing the HTTP connection) and
 * the loop; the abort reason is rethrown.
 */
export class OpenAiModelRunner {
  private readonly logger = new Logger(OpenAiModelRunner.name);

  constructor(
    private readonly tools: CorpusTools,
    private readonly config: AgentConfig,
    private readonly clientFactory: OpenAiClientFactory = defaultClientFactory,
  ) {}

  /**
   * The most history messages a turn can use: every message sent costs at least
   * `TOKENS_PER_MESSAGE` tokens, so no more than `contextTokens / TOKENS_PER_MESSAGE` of them ever
   * fit the context budget (1,501 with the default 6,000 tokens). Older messages are not loaded.
   * (An answer that failed without any text is not sent but still counts here: a thread with
   * hundreds of those in its latest turns, and a budget large enough for that many short
   * questions, would see fewer old turns than fit.)
   */
  get historyLimit(): number {
    return Math.ceil(this.config.contextTokens / TOKENS_PER_MESSAGE) + 1;
  }

  async run(ctx: AgentTurnContext, settings: ModelSettings): Promise<AgentTurnOutcome> {
    const model = settings.model ?? '';
    const server = safeServerUrl(settings.baseUrl ?? '');
    const client = this.clientFactory(settings, this.config);
    const tools = this.tools.definitions() as ChatCompletionTool[];
    const context = buildModelContext({
      systemPrompt: buildSystemPrompt(),
      tools,
      history: ctx.history,
      userMessage: ctx.userMessage,
      budgetTokens: this.config.contextTokens,
      reserveTokens: this.config.toolReserveTokens,
    });
    if (context.droppedTurns) {
      this.logger.log({ turnId: ctx.turnId, keptTurns: context.keptTurns, droppedTurns: context.droppedTurns }, 'history trimmed to the context budget');
    }
    const messages: ChatCompletionMessageParam[] = context.messages.map((m) => ({ role: m.role, content: m.content }));
    const recorder = new TurnRecorder(ctx, this.tools, lastAnswerState(ctx.history));

    for (let step = 1; step <= this.config.maxSteps; step++) {
      // Exact when the bound does not settle it (a short turn never loads the tokenizer).
      const used = tokensWithin(this.config.contextTokens, (m) => countMessagesTokens(messages as never, m) + countToolsTokens(tools, m));
      if (used > this.config.contextTokens) {
        throw new AgentTurnError(
          'CONTEXT_OVERFLOW',
          `Stopped before model step ${step}: this turn's tool results no longer fit the context budget (${used} of ${this.config.contextTokens} tokens, AGENT_CONTEXT_TOKENS). Ask a narrower question or raise the budget.`,
        );
      }
      const result = await this.requestWithRetry(client, { model, server, messages, tools, step }, ctx, recorder);
      if (!result.toolCalls.length) {
        return { content: recorder.content, metadata: recorder.metadata(model) };
      }
      messages.push({
        role: 'assistant',
        content: result.text || null,
        tool_calls: result.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      });
      for (const call of result.toolCalls) {
        const exec = await recorder.callTool(call.name, call.arguments);
        messages.push({ role: 'tool', tool_call_id: call.id, content: exec.modelContent });
      }
    }
    throw new AgentTurnError(
      'STEP_LIMIT',
      `The model (${model} at ${server}) was still calling tools after ${this.config.maxSteps} steps (AGENT_MAX_STEPS), so the turn was stopped without a final answer.`,
    );
  }

  /** One model step, retried once when the failure allows it and nothing was streamed yet. */
  private async requestWithRetry(
    client: OpenAI,
    req: { model: string; server: string; messages: ChatCompletionMessageParam[]; tools: ChatCompletionTool[]; step: number },
    ctx: AgentTurnContext,
    recorder: TurnRecorder,
  ): Promise<StepResult> {
    let first: ModelRequestError | undefined;
    for (let attempt = 1; attempt <= 2; attempt++) {
      const before = recorder.content.length;
      try {
        return await this.streamStep(client, req, ctx, recorder);
      } catch (e) {
        if (ctx.signal.aborted) throw ctx.signal.reason ?? e;
        const err = e instanceof ModelRequestError ? e : new ModelRequestError('MODEL_ERROR', (e as Error).message, false);
        const streamed = recorder.content.length > before;
        this.logger.warn({ turnId: ctx.turnId, step: req.step, attempt, server: req.server, error: err.message }, 'model request failed');
        if (attempt === 1 && err.retryable && !streamed) {
          first = err;
          await sleep(this.config.retryDelayMs, ctx.signal);
          continue;
        }
        const tried = first
          ? first.message === err.message
            ? ' (tried twice)'
            : ` (tried twice; first attempt: ${first.message})`
          : streamed
            ? ' (after part of the answer was streamed, so it was not retried)'
            : '';
        // Server-side trouble: the operator cannot fix it, an administrator can test the server.
        const advice = err.code === 'MODEL_UNAVAILABLE' || err.code === 'TIMEOUT' ? ' An administrator can check the model server under Settings → Test connection.' : '';
        const said = `${err.message}${tried}`;
        throw new AgentTurnError(err.code, `Model server ${req.server} (model ${req.model || 'unset'}): ${said}${/[.!?]$/.test(said) ? '' : '.'}${advice}`);
      }
    }
    throw new Error('unreachable');
  }

  /** Streams one chat-completions request, emitting text deltas; classifies failures as `ModelRequestError`. */
  private async streamStep(
    client: OpenAI,
    req: { model: string; messages: ChatCompletionMessageParam[]; tools: ChatCompletionTool[] },
    ctx: AgentTurnContext,
    recorder: TurnRecorder,
  ): Promise<StepResult> {
    const watchdog = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number, what: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => watchdog.abort(new ModelRequestError('TIMEOUT', what, false)), ms);
    };
    arm(this.config.firstTokenTimeoutMs, `no response within ${fmtMs(this.config.firstTokenTimeoutMs)} (MODEL_FIRST_TOKEN_TIMEOUT_MS)`);
    const signal = AbortSignal.any([ctx.signal, watchdog.signal]);
    const assembler = new ToolCallAssembler();
    let text = '';
    let finishReason: string | null = null;
    try {
      turnTrace.mark(ctx.turnId, 'model.request');
      const stream = await client.chat.completions.create(
        { model: req.model, messages: req.messages, tools: req.tools, tool_choice: 'auto', stream: true },
        { signal },
      );
      turnTrace.mark(ctx.turnId, 'model.headers');
      for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
        arm(this.config.streamIdleTimeoutMs, `the stream stalled for ${fmtMs(this.config.streamIdleTimeoutMs)} (MODEL_STREAM_IDLE_TIMEOUT_MS)`);
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const piece = choice.delta?.content;
        if (piece) {
          if (!text && recorder.content && !recorder.content.endsWith('\n')) await recorder.say('\n\n');
          text += piece;
          await recorder.say(piece);
        }
        assembler.add(choice.delta?.tool_calls as never);
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      // The SDK's stream ends quietly (no error) when its signal aborts: say why it stopped.
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (watchdog.signal.aborted) throw watchdog.signal.reason;
    } catch (e) {
      if (ctx.signal.aborted) throw ctx.signal.reason ?? e;
      if (watchdog.signal.aborted) throw watchdog.signal.reason;
      throw classify(e);
    } finally {
      clearTimeout(timer);
    }
    const toolCalls = assembler.calls();
    const nameless = toolCalls.find((c) => !c.name);
    if (nameless) throw new ModelRequestError('MODEL_ERROR', `malformed tool call ${nameless.id}: no function name`, true);
    return { text, toolCalls, finishReason };
  }
}

/** Maps an `openai` SDK error to a `ModelRequestError` with the server's own message. */
export function classify(e: unknown): ModelRequestError {
  if (e instanceof ModelRequestError) return e;
  if (e instanceof APIConnectionTimeoutError) return new ModelRequestError('TIMEOUT', 'no response headers in time', false);
  if (e instanceof APIConnectionError) return new ModelRequestError('MODEL_UNAVAILABLE', connectionFailure(e, undefined), true);
  if (e instanceof APIUserAbortError) return new ModelRequestError('MODEL_ERROR', 'request aborted', false);
  if (e instanceof APIError) {
    const status = e.status;
    const retryable = status === undefined || status >= 500 || status === 429 || status === 408;
    return new ModelRequestError(status !== undefined && status >= 500 ? 'MODEL_UNAVAILABLE' : 'MODEL_ERROR', e.message || `HTTP ${status}`, retryable);
  }
  if (e instanceof SyntaxError) return new ModelRequestError('MODEL_ERROR', `malformed stream (${e.message})`, true);
  const err = e as Error;
  return new ModelRequestError('MODEL_ERROR', err?.message ?? String(e), /terminated|socket|ECONNRESET|other side closed/i.test(err?.message ?? ''));
}

function fmtMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
