import { Logger } from '@nestjs/common';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { AnswerVerification } from '@corpus-chat/contracts';
import type { CorpusTools, ToolExecution } from '@corpus-chat/corpus-queries';
import type { ModelSettings } from '@corpus-chat/persistence';
import {
  AgentTurnError,
  type AgentTurnContext,
  type AgentTurnOutcome,
  type ModelSlots,
} from '@corpus-chat/server-core';
import type { AgentConfig } from '../agent.config';
import { buildModelContext, withoutReasoning } from '../context/context-builder';
import { attachmentNote, buildSystemPrompt } from '../context/system-prompt';
import { contextOverflowAnswer, fitToolResults, requestTokens } from '../context/request-fit';
import { TOKENS_PER_MESSAGE } from '../context/token-counter';
import { lastAnswerState } from '../history';
import { TurnRecorder } from '../turn-recorder';
import { reaskMessage, verifyNumbers } from '../verification/number-provenance';
import { defaultClientFactory, type OpenAiClientFactory } from './model-client';
import {
  SHARE,
  budgetSource,
  contextTooSmall,
  firstWindow,
  serverContext,
  shorterHistory,
  windowAfterRefusal,
  type ContextWindow,
} from './model-context-window';
import { safeServerUrl } from './model-http';
import { requestWithRetry } from './model-retry';
import { ModelRequestError, type ShownStep } from './model-step';
import { isRecord, tryJson } from './tool-call-json';

/**
 * The agent's tool loop against an OpenAI-compatible server, streaming with `tools`. Budgets the
 * context (the lesser of `AGENT_CONTEXT_TOKENS` and 80 % of the reported window), then runs steps
 * (one request each, built by `prepareStep`) until a `stopWhen` condition holds, each decoded by
 * `StepDecoder`; tool results go back fitted by
 * `fitToolResults` (with `reasoning_content`, which DeepSeek's thinking mode requires). The final
 * answer must be complete and pass `verifyNumbers`, else it is rewritten once.
 *
 * Failures before streaming are retried once, 429 waits `Retry-After` (≤ 3 times), a context
 * refusal retries with half the history; otherwise `AgentTurnError` names server, model and setting.
 */
export class OpenAiModelRunner {
  private readonly logger = new Logger(OpenAiModelRunner.name);

  constructor(
    private readonly tools: CorpusTools,
    private readonly config: AgentConfig,
    private readonly clientFactory: OpenAiClientFactory = defaultClientFactory,
    /** The cap on open requests per model server (`MODEL_MAX_CONCURRENT`); none when absent. */
    private readonly slots?: ModelSlots,
  ) {}

  /** The most history messages that can fit (`contextTokens / TOKENS_PER_MESSAGE`); no older ones load. */
  get historyLimit(): number {
    return Math.ceil(this.config.contextTokens / TOKENS_PER_MESSAGE) + 1;
  }

  async run(ctx: AgentTurnContext, settings: ModelSettings): Promise<AgentTurnOutcome> {
    const model = settings.model ?? '';
    const server = safeServerUrl(settings.baseUrl ?? '');
    const client = this.clientFactory(settings, this.config);
    const tools = this.tools.definitions() as ChatCompletionTool[];
    const found = await serverContext(settings, ctx.signal);
    let window = firstWindow(found, this.config.contextTokens);
    let prefix = this.prompt(ctx, tools, window);
    const recorder = new TurnRecorder(ctx, this.tools, lastAnswerState(ctx.history));
    const where = `Model server ${server} (model ${model || 'unset'})`;
    const earlierAnswers = ctx.history
      .filter((m) => m.role === 'assistant' && m.status === 'complete')
      .map((m) => withoutReasoning(m.content));
    const verify = (answer: string) =>
      verifyNumbers({ answer, userMessage: ctx.userMessage, evidence: recorder.evidence, earlierAnswers });
    const outcome = (verification: AnswerVerification): AgentTurnOutcome => ({
      content: recorder.content,
      metadata: { ...recorder.metadata(model), verification },
    });
    /** This turn's assistant tool calls and tool results, after the prompt. */
    const loop: ChatCompletionMessageParam[] = [];
    let step = 0;
    let answer: AgentTurnOutcome | undefined;
    let contextRetried = false;
    /** The answer that was sent back for holding unsupported numbers: it stands if the second try fails. */
    let first: { from: number; text: string; verification: AnswerVerification } | undefined;
    /** Checked before each step; the first that holds ends the loop. */
    const stopWhen = {
      answered: () => answer !== undefined,
      cancelled: () => ctx.signal.aborted,
      stepLimit: () => step >= this.config.maxSteps,
    };

    /** The step's request, fitted to the budget; none when it cannot fit, after answering so. */
    const prepareStep = async (): Promise<ChatCompletionMessageParam[] | undefined> => {
      const messages = [...prefix, ...loop];
      // Exact when the bound does not settle it (a short turn never loads the tokenizer).
      const used = requestTokens(messages as never, tools, window.budget);
      if (used <= window.budget) return messages;
      // A re-ask that no longer fits: the first answer stands (the catch in `run` restores it).
      if (first) throw new AgentTurnError('CONTEXT_OVERFLOW', 'the re-ask does not fit the context budget');
      this.logger.warn(
        { turnId: ctx.turnId, step, tokens: used, budget: window.budget },
        `tool results do not fit the context budget even shortened ` +
          `(${budgetSource(this.config.contextTokens, window.serverTokens)}); answering so`,
      );
      await recorder.say(contextOverflowAnswer(ctx.language, window.setting));
      answer = outcome(verify(recorder.content));
      return undefined;
    };
    /** The step's model request; a context refusal is retried once per turn, with a smaller prompt. */
    const request = async (): Promise<ShownStep | undefined> => {
      const messages = await prepareStep();
      if (!messages) return undefined;
      const promptProgress = found.source === 'llamacpp';
      try {
        return await requestWithRetry(client, { model, messages, tools, promptProgress }, ctx, recorder, {
          step,
          where,
          config: this.config,
          logger: this.logger,
          slot: this.slots && { slots: this.slots, baseUrl: settings.baseUrl ?? '' },
        });
      } catch (e) {
        if (!(e instanceof ModelRequestError) || !e.contextExceeded) throw e;
        // Budget with the window the refusal named, so the history is trimmed to fit; when it named
        // none, keep only the latest turn of the history (or none).
        const smaller = windowAfterRefusal(settings, found, window, e, this.config.contextTokens);
        const history = e.contextTokens ? ctx.history : shorterHistory(ctx.history);
        const retry = contextRetried ? undefined : this.prompt({ ...ctx, history }, tools, smaller);
        if (!retry || retry.length >= prefix.length)
          throw contextTooSmall(where, e, e.contextSetting ?? window.setting, contextRetried);
        this.logger.warn(
          { turnId: ctx.turnId, step, budget: smaller.budget },
          'context refused by the model server; retrying with a smaller history',
        );
        contextRetried = true;
        window = smaller;
        prefix = retry;
        return request(); // a second refusal ends the turn above: `contextRetried` is set
      }
    };
    /** A step without tool calls: the answer, or once a re-ask when it states unsupported numbers. */
    const answerStep = async (result: ShownStep): Promise<AgentTurnOutcome | undefined> => {
      this.assertComplete(result, where);
      const verification = verify(recorder.content);
      // Only numbers of this step make the model try again: earlier steps' text cannot be rewritten.
      if (first || step >= this.config.maxSteps || !verify(result.text).unsupported.length)
        return outcome({ ...verification, ...(first ? { reasked: true } : {}) });
      first = { from: result.shownFrom, text: recorder.content.slice(result.shownFrom), verification };
      this.logger.log(
        { turnId: ctx.turnId, step, unsupported: verification.unsupported.length },
        'answer states unsupported numbers; asking the model once more',
      );
      loop.push(
        { role: 'assistant', content: result.text },
        { role: 'user', content: reaskMessage(verification, recorder.evidence) },
      );
      await recorder.reset(result.shownFrom, 'reask');
      return undefined;
    };
    const toolStep = async (result: ShownStep): Promise<void> => {
      const executions: ToolExecution[] = [];
      for (const call of result.toolCalls)
        executions.push(await recorder.callTool(call.name, call.arguments));
      const callMessage = {
        role: 'assistant',
        content: result.text || null,
        tool_calls: result.toolCalls.map((c, i) => ({
          id: c.id,
          type: 'function' as const,
          function: { name: c.name, arguments: argumentsToSendBack(executions[i], c.arguments) },
        })),
        // Within the turn, a server that streamed reasoning in a field gets it back under that name
        // (DeepSeek requires it).
        ...(result.reasoningField && result.reasoning ? { [result.reasoningField]: result.reasoning } : {}),
      } as ChatCompletionAssistantMessageParam;
      // The operator's cards already show the full results; the model gets what fits.
      const fitted = fitToolResults({
        prompt: prefix,
        loop: [...loop, callMessage],
        results: result.toolCalls.map((c, i) => ({ toolCallId: c.id, content: executions[i].modelContent })),
        tools,
        budget: window.budget,
      });
      if (fitted.droppedTurns || fitted.compacted)
        this.logger.log(
          { turnId: ctx.turnId, step, droppedTurns: fitted.droppedTurns, compacted: fitted.compacted },
          'tool results fitted to the context budget',
        );
      prefix = fitted.prompt;
      loop.push(
        callMessage,
        ...result.toolCalls.map((c, i) => ({
          role: 'tool' as const,
          tool_call_id: c.id,
          content: fitted.contents[i],
        })),
      );
    };

    try {
      while (!Object.values(stopWhen).some((stop) => stop())) {
        step++;
        const result = await request();
        if (!result) continue; // answered that the request cannot fit
        recorder.addReasoning(result.reasoning);
        recorder.addUsage({ step, ...result.usage });
        if (result.toolCalls.length) await toolStep(result);
        else answer = await answerStep(result);
      }
      if (answer) return answer;
      ctx.signal.throwIfAborted();
      throw new AgentTurnError(
        'STEP_LIMIT',
        `The model (${model} at ${server}) was still calling tools after ${this.config.maxSteps} steps (AGENT_MAX_STEPS), so the turn was stopped without a final answer.`,
      );
    } catch (e) {
      if (!first || ctx.signal.aborted) throw e;
      // The second try failed: the first answer stands, stored with its unsupported numbers.
      this.logger.warn(
        { turnId: ctx.turnId, error: (e as Error).message },
        'the re-asked answer failed; keeping the first answer',
      );
      await recorder.reset(first.from, 'reask');
      await recorder.say(first.text);
      return outcome({ ...first.verification, reasked: true });
    }
  }

  /**
   * System prompt, the history that fits `window.budget`, the new message. When the server's window
   * is what leaves no room for the message, the error names the server's setting.
   */
  private prompt(
    ctx: AgentTurnContext,
    tools: ChatCompletionTool[],
    window: ContextWindow,
  ): ChatCompletionMessageParam[] {
    let context: ReturnType<typeof buildModelContext>;
    try {
      context = buildModelContext({
        systemPrompt: buildSystemPrompt(ctx.language) + attachmentNote(ctx.attachment),
        tools,
        history: ctx.history,
        userMessage: ctx.userMessage,
        budgetTokens: window.budget,
        reserveTokens: Math.min(this.config.toolReserveTokens, Math.floor(window.budget / 3)),
      });
    } catch (e) {
      if (e instanceof AgentTurnError && window.serverTokens && window.budget < this.config.contextTokens) {
        throw new AgentTurnError(
          'CONTEXT_OVERFLOW',
          `The system prompt, tool schemas and this message do not fit ${SHARE} of the model server's ${window.serverTokens}-token context window (below AGENT_CONTEXT_TOKENS, ${this.config.contextTokens}). Raise ${window.setting}, or shorten the message.`,
        );
      }
      throw e;
    }
    const { keptTurns, droppedTurns } = context;
    if (droppedTurns)
      this.logger.log(
        { turnId: ctx.turnId, keptTurns, droppedTurns, budget: window.budget },
        'history trimmed to the context budget',
      );
    return context.messages.map((m) => ({ role: m.role, content: m.content }));
  }

  /** A final step must have ended with `stop` and written an answer. */
  private assertComplete(result: ShownStep, where: string): void {
    if (result.finishReason === 'length') {
      throw new AgentTurnError(
        'MODEL_ERROR',
        `${where}: the answer was cut off at the model's output limit (finish reason "length"); what arrived is kept above. Retry, or raise the server's output or context limit.`,
      );
    }
    if (!result.finishReason) {
      throw new AgentTurnError(
        'MODEL_ERROR',
        `${where}: the stream ended before the answer was complete (no finish reason); what arrived is kept above. Retry the question.`,
      );
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
}

/**
 * A call's arguments as the next request repeats them: validated ones, else the model's object,
 * else `{}` (templated servers fail on non-JSON).
 */
function argumentsToSendBack(exec: ToolExecution, raw: string): string {
  if (exec.ok) return JSON.stringify(exec.args);
  const parsed = tryJson(raw);
  return isRecord(parsed) ? JSON.stringify(parsed) : '{}';
}
