import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import OpenAI from 'openai';
import type { ChatCompletionAssistantMessageParam, ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { AnswerVerification } from '@corpus-chat/contracts';
import type { ModelSettings } from '@corpus-chat/corpus-queries';
import { AgentTurnError, discoverContextLength, effectiveContextBudget, SERVER_CONTEXT_SHARE, type AgentTurnContext, type AgentTurnOutcome, type HistoryMessage, type ModelContextSource } from '@corpus-chat/server-core';
import type { AgentConfig } from '../agent.config';
import { buildModelContext, withoutReasoning } from '../context/context-builder';
import { buildSystemPrompt } from '../context/system-prompt';
import { TOKENS_PER_MESSAGE, countMessagesTokens, countToolsTokens, tokensWithin } from '../context/token-counter';
import { lastAnswerState } from '../history';
import type { CorpusTools, ToolExecution } from '../tools/corpus-tools';
import { TurnRecorder } from '../turn-recorder';
import { reaskMessage, verifyNumbers } from '../verification/number-provenance';
import { modelFetch, safeServerUrl } from './model-http';
import { ModelRequestError, fmtMs, streamStep, type ShownStep, type StepRequest } from './model-step';

export { ModelRequestError } from './model-step';

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

/** What a server said of its context window for a model. */
interface ServerContext {
  tokens: number | null;
  source?: ModelContextSource;
}

/** Context windows found per server and model, asked again after 10 minutes (a model can be reloaded with another size). */
const serverContexts = new LRUCache<string, ServerContext>({ max: 64, ttl: 10 * 60_000 });

/** The setting that sizes each server's context window, for messages. */
const CONTEXT_SETTINGS: Record<ModelContextSource, string> = {
  ollama: "Ollama's num_ctx (OLLAMA_CONTEXT_LENGTH)",
  vllm: "vLLM's --max-model-len",
  llamacpp: "llama.cpp's --ctx-size (-c)",
  lmstudio: "LM Studio's context length of the loaded model",
};
const ANY_CONTEXT_SETTING =
  "the server's context window (Ollama: num_ctx or OLLAMA_CONTEXT_LENGTH; llama.cpp: --ctx-size; vLLM: --max-model-len; LM Studio: the model's context length)";

/** Waits on a 429 longer than this end the turn instead (the operator is better told to try later). */
const MAX_RATE_LIMIT_WAIT_MS = 60_000;
/** 429 answers one model step waits out before giving up. */
const MAX_RATE_LIMIT_RETRIES = 3;

/**
 * The agent's tool loop against an OpenAI-compatible chat-completions server (Ollama, vLLM,
 * llama.cpp server, LM Studio, LiteLLM, OpenAI), streaming with `tools`.
 *
 * Per turn: budgets the context with the smaller of `AGENT_CONTEXT_TOKENS` and 80 % of the window
 * the server reports for the model (`discoverContextLength`), builds the prompt (system prompt, tool
 * schemas, the recent prose turns that fit, the new message), then runs up to `maxSteps` model
 * requests. Each request is decoded by `StepDecoder` (reasoning apart, tool calls written as text
 * recovered, parallel calls split); each tool call runs through the read-only tool layer with
 * `tool.call`/`tool.result` events, and the validated arguments with the result go back to the
 * model in the next step (with the step's reasoning as `reasoning_content`, which DeepSeek's
 * thinking mode requires within a turn).
 *
 * The final answer must be complete (a `stop` finish reason and some text) and passes the number
 * provenance check (`verifyNumbers`): numbers no tool result supports make the model write the
 * answer once more, told which; what is still unsupported then is stored in `verification`.
 *
 * Failures: a request that fails before streaming anything (connection refused, 5xx, a malformed
 * stream) is retried once after `retryDelayMs`; a 429 waits `Retry-After` (up to three times); a
 * context-length refusal is retried once with half the history budget. Otherwise the turn ends with
 * `AgentTurnError` naming the server, the model and the setting to change. `ctx.signal` aborts the
 * in-flight request (closing the HTTP connection) and the loop; the abort reason is rethrown.
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
   */
  get historyLimit(): number {
    return Math.ceil(this.config.contextTokens / TOKENS_PER_MESSAGE) + 1;
  }

  async run(ctx: AgentTurnContext, settings: ModelSettings): Promise<AgentTurnOutcome> {
    const model = settings.model ?? '';
    const server = safeServerUrl(settings.baseUrl ?? '');
    const client = this.clientFactory(settings, this.config);
    const tools = this.tools.definitions() as ChatCompletionTool[];
    const found = await this.serverContext(settings, ctx.signal);
    const serverContext = found.tokens;
    const budget = effectiveContextBudget(serverContext, this.config.contextTokens);
    const setting = found.source ? CONTEXT_SETTINGS[found.source] : ANY_CONTEXT_SETTING;
    let prefix = this.prompt(ctx, ctx.history, tools, budget, serverContext, setting);
    /** This turn's assistant tool calls and tool results, after the prompt. */
    const loop: ChatCompletionMessageParam[] = [];
    const recorder = new TurnRecorder(ctx, this.tools, lastAnswerState(ctx.history));
    const where = `Model server ${server} (model ${model || 'unset'})`;
    let shrunk = false;
    let reasked = false;
    const earlierAnswers = ctx.history.filter((m) => m.role === 'assistant' && m.status === 'complete').map((m) => withoutReasoning(m.content));

    for (let step = 1; step <= this.config.maxSteps; step++) {
      const messages = [...prefix, ...loop];
      // Exact when the bound does not settle it (a short turn never loads the tokenizer).
      const used = tokensWithin(budget, (m) => countMessagesTokens(messages as never, m) + countToolsTokens(tools, m));
      if (used > budget) {
        throw new AgentTurnError(
          'CONTEXT_OVERFLOW',
          `Stopped before model step ${step}: this turn's tool results no longer fit the context budget (${used} of ${budget} tokens; ${budgetSource(this.config.contextTokens, serverContext)}). Ask a narrower question or raise the budget.`,
        );
      }
      let result: ShownStep;
      try {
        result = await this.requestWithRetry(client, { model, messages, tools }, ctx, recorder, step, where);
      } catch (e) {
        if (!(e instanceof ModelRequestError) || !e.contextExceeded) throw e;
        const latest = latestTurn(ctx.history);
        if (shrunk || latest.length >= ctx.history.length) throw contextTooSmall(where, e, e.contextSetting ?? setting);
        // The server's window is smaller than it reported: once more, with only the latest turn.
        shrunk = true;
        prefix = this.prompt(ctx, latest, tools, budget, serverContext, setting);
        this.logger.warn({ turnId: ctx.turnId, step }, 'context refused by the model server; retrying with the latest turn of the history only');
        step--;
        continue;
      }
      recorder.addReasoning(result.reasoning);
      recorder.addUsage({ step, ...result.usage });

      if (!result.toolCalls.length) {
        this.assertComplete(result, where);
        const verification = verifyNumbers({ answer: recorder.content, userMessage: ctx.userMessage, evidence: recorder.evidence, earlierAnswers });
        if (verification.unsupported.length && !reasked && step < this.config.maxSteps) {
          // Once: show the model which numbers nothing supports, and let it answer again.
          reasked = true;
          this.logger.log({ turnId: ctx.turnId, step, unsupported: verification.unsupported.length }, 'answer states unsupported numbers; asking the model once more');
          loop.push({ role: 'assistant', content: result.text }, { role: 'user', content: reaskMessage(verification, recorder.evidence) });
          await recorder.reset(result.shownFrom, 'reask');
          continue;
        }
        const final: AnswerVerification = { ...verification, ...(reasked ? { reasked: true } : {}) };
        return { content: recorder.content, metadata: { ...recorder.metadata(model), verification: final } };
      }

      const executions: ToolExecution[] = [];
      for (const call of result.toolCalls) executions.push(await recorder.callTool(call.name, call.arguments));
      const assistant: ChatCompletionAssistantMessageParam & { reasoning_content?: string } = {
        role: 'assistant',
        content: result.text || null,
        tool_calls: result.toolCalls.map((c, i) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: argumentsToSendBack(executions[i], c.arguments) },
        })),
        ...(result.reasoning ? { reasoning_content: result.reasoning } : {}),
      };
      loop.push(assistant);
      result.toolCalls.forEach((c, i) => loop.push({ role: 'tool', tool_call_id: c.id, content: executions[i].modelContent }));
    }
    throw new AgentTurnError(
      'STEP_LIMIT',
      `The model (${model} at ${server}) was still calling tools after ${this.config.maxSteps} steps (AGENT_MAX_STEPS), so the turn was stopped without a final answer.`,
    );
  }

  /**
   * System prompt, the part of `history` that fits `budget`, the new message. When the server's
   * window is what leaves no room for the message, the error names the server's setting.
   */
  private prompt(
    ctx: AgentTurnContext,
    history: HistoryMessage[],
    tools: ChatCompletionTool[],
    budget: number,
    serverContext: number | null,
    setting: string,
  ): ChatCompletionMessageParam[] {
    let context: ReturnType<typeof buildModelContext>;
    try {
      context = buildModelContext({
        systemPrompt: buildSystemPrompt(),
        tools,
        history,
        userMessage: ctx.userMessage,
        budgetTokens: budget,
        reserveTokens: Math.min(this.config.toolReserveTokens, Math.floor(budget / 3)),
      });
    } catch (e) {
      if (e instanceof AgentTurnError && serverContext && budget < this.config.contextTokens) {
        throw new AgentTurnError(
          'CONTEXT_OVERFLOW',
          `${e.message.replace(/ \(AGENT_CONTEXT_TOKENS\)\..*$/, '')}: 80 % of the model server's ${serverContext}-token context window, which is below AGENT_CONTEXT_TOKENS (${this.config.contextTokens}). Raise ${setting}, or shorten the message.`,
        );
      }
      throw e;
    }
    if (context.droppedTurns) {
      this.logger.log({ turnId: ctx.turnId, keptTurns: context.keptTurns, droppedTurns: context.droppedTurns, budget }, 'history trimmed to the context budget');
    }
    return context.messages.map((m) => ({ role: m.role, content: m.content }));
  }

  /** The server's context window for the model, asked once per 10 minutes; `tokens` null when it does not say. */
  private async serverContext(settings: ModelSettings, signal: AbortSignal): Promise<ServerContext> {
    const key = JSON.stringify([settings.baseUrl, settings.model]);
    const known = serverContexts.get(key);
    if (known) return known;
    const info = await discoverContextLength(settings.baseUrl ?? '', settings.model ?? '', settings.apiKey ?? null, { timeoutMs: 3000 });
    signal.throwIfAborted();
    const found: ServerContext = { tokens: info.contextTokens ?? null, ...(info.source ? { source: info.source } : {}) };
    serverContexts.set(key, found);
    return found;
  }

  /** A final step must have ended with `stop` and written an answer. */
  private assertComplete(result: ShownStep, where: string): void {
    if (result.finishReason === 'length') {
      throw new AgentTurnError('MODEL_ERROR', `${where}: the answer was cut off at the model's output limit (finish reason "length"); what arrived is kept above. Retry, or raise the server's output or context limit.`);
    }
    if (!result.finishReason) {
      throw new AgentTurnError('MODEL_ERROR', `${where}: the stream ended before the answer was complete (no finish reason); what arrived is kept above. Retry the question.`);
    }
    if (!result.text.trim()) {
      throw new AgentTurnError(
        'MODEL_ERROR',
        result.reasoning.trim()
          ? `${where}: the model only reasoned and wrote no answer. Retry the question, or give the model more room (its output or context limit).`
          : `${where}: the model returned an empty answer. Retry the question.`,
      );
    }
  }

  /** One model step: retried once when nothing was streamed yet, and after each 429 as the server asks. */
  private async requestWithRetry(client: OpenAI, req: StepRequest, ctx: AgentTurnContext, recorder: TurnRecorder, step: number, where: string): Promise<ShownStep> {
    let first: ModelRequestError | undefined;
    let rateLimited = 0;
    for (let attempt = 1; ; attempt++) {
      const before = recorder.content.length;
      try {
        return await streamStep(client, req, ctx, recorder, { firstTokenMs: this.config.firstTokenTimeoutMs, idleMs: this.config.streamIdleTimeoutMs });
      } catch (e) {
        if (ctx.signal.aborted) throw ctx.signal.reason ?? e;
        if (!(e instanceof ModelRequestError)) throw e;
        const streamed = recorder.content.length > before;
        this.logger.warn({ turnId: ctx.turnId, step, attempt, status: e.status, error: e.message }, 'model request failed');
        if (e.contextExceeded) throw e;
        if (e.status === 429 && !streamed && rateLimited < MAX_RATE_LIMIT_RETRIES) {
          const wait = e.retryAfterMs ?? this.config.retryDelayMs;
          if (wait <= MAX_RATE_LIMIT_WAIT_MS) {
            rateLimited++;
            await sleep(wait, ctx.signal);
            continue;
          }
          throw new AgentTurnError(e.code, `${where}: rate limited; the server asks to wait ${fmtMs(wait)} (${e.message}). Try again later.`);
        }
        if (!first && e.retryable && !streamed) {
          first = e;
          await sleep(this.config.retryDelayMs, ctx.signal);
          continue;
        }
        const tried = first
          ? first.message === e.message
            ? ' (tried twice)'
            : ` (tried twice; first attempt: ${first.message})`
          : streamed
            ? ' (after part of the answer was streamed, so it was not retried)'
            : '';
        // Server-side trouble: the operator cannot fix it, an administrator can test the server.
        const advice = e.code === 'MODEL_UNAVAILABLE' || e.code === 'TIMEOUT' ? ' An administrator can check the model server under Settings → Test connection.' : '';
        const said = `${e.message}${tried}`;
        throw new AgentTurnError(e.code, `${where}: ${said}${/[.!?]$/.test(said) ? '' : '.'}${advice}`);
      }
    }
  }
}

/**
 * The arguments of a tool call as the next request repeats them: the validated ones (defaults
 * applied) when the call ran, the model's own JSON object when it was refused, else `{}` (servers
 * that render the history through a chat template parse them, and fail on text that is not JSON).
 */
function argumentsToSendBack(exec: ToolExecution, raw: string): string {
  if (exec.ok) return JSON.stringify(exec.args);
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? JSON.stringify(parsed) : '{}';
  } catch {
    return '{}';
  }
}

/** Where the budget came from, for messages. */
function budgetSource(configured: number, serverContext: number | null): string {
  return serverContext && Math.floor(serverContext * SERVER_CONTEXT_SHARE) < configured
    ? `80 % of the server's ${serverContext}-token context window, below AGENT_CONTEXT_TOKENS ${configured}`
    : `AGENT_CONTEXT_TOKENS`;
}

/** The history from its latest user message on: what a retry after a context refusal keeps. */
function latestTurn(history: HistoryMessage[]): HistoryMessage[] {
  for (let i = history.length - 1; i >= 0; i--) if (history[i].role === 'user') return history.slice(i);
  return [];
}

/** The turn's error when the server refused the prompt as too long, also with a smaller history. */
function contextTooSmall(where: string, e: ModelRequestError, setting: string): AgentTurnError {
  return new AgentTurnError(
    'CONTEXT_OVERFLOW',
    `${where} refused the prompt as longer than its context window (${e.message}), also with a smaller history. Raise ${setting}, or lower AGENT_CONTEXT_TOKENS so the worker sends less.`,
  );
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
