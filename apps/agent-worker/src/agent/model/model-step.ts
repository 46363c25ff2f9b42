import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { TurnErrorCode } from '@corpus-chat/contracts';
import { metrics, secondsSince, turnTrace, type AgentTurnContext } from '@corpus-chat/server-core';
import type { AgentConfig } from '../agent.config';
import type { TurnRecorder } from '../turn-recorder';
import { describeModelError, type ModelFailure } from './model-errors';
import { StepDecoder, type DecodedStep } from './step-decoder';

/** Why one model request failed, what the operator should read, and whether trying again may help. */
export class ModelRequestError extends Error {
  declare readonly code: TurnErrorCode;
  declare readonly retryable: boolean;
  declare readonly retryAfterMs?: number;
  declare readonly contextExceeded?: boolean;
  declare readonly status?: number;
  /** The server setting that sizes its context window, when the error showed which server it is. */
  declare readonly contextSetting?: string;
  /** The context window the refusal named (llama.cpp's `n_ctx`, vLLM's "maximum context length is N"). */
  declare readonly contextTokens?: number;

  constructor(failure: ModelFailure) {
    super(failure.message);
    this.name = 'ModelRequestError';
    Object.assign(this, failure);
  }
}

export interface StepRequest {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  /** Ask llama.cpp to stream its prompt processing (`return_progress`: `prompt_progress` chunks). */
  promptProgress?: boolean;
}

/**
 * A decoded step, where its text starts in the answer, and the delta field its reasoning came in
 * (sent back under that name within the turn; `<think>` reasoning is not).
 */
export type ShownStep = DecodedStep & {
  shownFrom: number;
  reasoningField?: 'reasoning_content' | 'reasoning';
};

/**
 * Streams one model request through `StepDecoder`, showing only answer text (what turned out to be
 * reasoning or a call is cut back with `text.reset`). Failures are `ModelRequestError`s; a
 * first-token or stream-idle timeout aborts with `TIMEOUT`.
 */
export async function streamStep(
  client: OpenAI,
  req: StepRequest,
  ctx: Pick<AgentTurnContext, 'signal' | 'turnId'>,
  recorder: TurnRecorder,
  timeouts: Pick<AgentConfig, 'firstTokenTimeoutMs' | 'streamIdleTimeoutMs'>,
): Promise<ShownStep> {
  const watchdog = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number, what: string) => {
    clearTimeout(timer);
    timer = setTimeout(
      () => watchdog.abort(new ModelRequestError({ code: 'TIMEOUT', message: what, retryable: false })),
      ms,
    );
  };
  const { firstTokenTimeoutMs: firstMs, streamIdleTimeoutMs: idleMs } = timeouts;
  arm(firstMs, `no response within ${fmtMs(firstMs)} (MODEL_FIRST_TOKEN_TIMEOUT_MS)`);
  const signal = AbortSignal.any([ctx.signal, watchdog.signal]);
  const decoder = new StepDecoder();
  const shown = new StepText(recorder);
  let reasoningField: ShownStep['reasoningField'];
  try {
    turnTrace.mark(ctx.turnId, 'model.request');
    const requested = performance.now();
    let firstChunk = 0;
    const stream = await client.chat.completions.create(
      {
        model: req.model,
        messages: req.messages,
        tools: req.tools,
        tool_choice: 'auto',
        stream: true,
        stream_options: { include_usage: true },
        ...(req.promptProgress ? { return_progress: true } : {}),
      },
      { signal },
    );
    turnTrace.mark(ctx.turnId, 'model.headers');
    for await (const chunk of stream as AsyncIterable<ChatCompletionChunk>) {
      arm(idleMs, `the stream stalled for ${fmtMs(idleMs)} (MODEL_STREAM_IDLE_TIMEOUT_MS)`);
      if (!firstChunk)
        metrics.modelFirstToken.observe(secondsSince(requested, (firstChunk = performance.now())));
      reasoningField ??= reasoningFieldOf(chunk);
      await recorder.progress.chunk(req.model, chunk);
      await shown.apply(decoder.push(chunk));
    }
    // The SDK's stream ends quietly (no error) when its signal aborts: say why it stopped.
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (watchdog.signal.aborted) throw watchdog.signal.reason;
    const { out, step } = decoder.end();
    const streamed = secondsSince(firstChunk);
    if (firstChunk && step.usage?.completionTokens && streamed > 0)
      metrics.modelTokensPerSecond.observe(step.usage.completionTokens / streamed);
    await shown.apply(out);
    if (step.toolCalls.length && !step.finishReason) {
      // Cut in the middle of a call: its arguments may be half there. Never run it.
      throw new ModelRequestError({
        code: 'MODEL_ERROR',
        message: 'the stream ended in the middle of a tool call (no finish reason)',
        retryable: true,
      });
    }
    return { ...step, shownFrom: shown.from, ...(reasoningField ? { reasoningField } : {}) };
  } catch (e) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? e;
    if (watchdog.signal.aborted) throw watchdog.signal.reason;
    throw e instanceof ModelRequestError ? e : new ModelRequestError(describeModelError(e));
  } finally {
    clearTimeout(timer);
  }
}

/** What one step has shown of its answer, as offsets into the turn's whole answer text. */
class StepText {
  /** The answer's length before this step (and before its paragraph break). */
  private base = -1;
  private gap = 0;

  constructor(private readonly recorder: TurnRecorder) {}

  /** Where this step's text starts in the answer (the answer's length when it showed nothing). */
  get from(): number {
    return this.base >= 0 ? this.base : this.recorder.content.length;
  }

  async apply(outputs: ReturnType<StepDecoder['push']>): Promise<void> {
    for (const o of outputs) {
      if (o.kind === 'text') {
        if (!o.text) continue;
        if (this.base < 0) {
          this.base = this.recorder.content.length;
          const needsBreak = this.base > 0 && !this.recorder.content.endsWith('\n');
          if (needsBreak) await this.recorder.say('\n\n');
          this.gap = needsBreak ? 2 : 0;
        }
        await this.recorder.say(o.text);
      } else if (this.base >= 0) {
        await this.recorder.reset(o.length === 0 ? this.base : this.base + this.gap + o.length, o.reason);
        if (o.length === 0) this.base = -1;
      }
    }
  }
}

/** The delta field a chunk carries reasoning in, if any. */
function reasoningFieldOf(chunk: ChatCompletionChunk): ShownStep['reasoningField'] {
  const delta = (chunk.choices?.[0]?.delta ?? {}) as Record<string, unknown>;
  return (['reasoning_content', 'reasoning'] as const).find((k) => typeof delta[k] === 'string' && delta[k]);
}

export function fmtMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}
