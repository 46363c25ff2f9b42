import type { Logger } from '@nestjs/common';
import type OpenAI from 'openai';
import {
  AgentTurnError,
  type AgentTurnContext,
  inSpan,
  type ModelSlots,
  sleep,
} from '@corpus-chat/server-core';
import type { AgentConfig } from '../agent.config';
import type { TurnRecorder } from '../turn-recorder';
import { ModelRequestError, fmtMs, streamStep, type ShownStep, type StepRequest } from './model-step';

/** Waits on a 429 longer than this end the turn instead (the operator is better told to try later). */
const MAX_RATE_LIMIT_WAIT_MS = 60_000;
/** 429 answers one model step waits out before giving up. */
const MAX_RATE_LIMIT_RETRIES = 3;

/** Which step of which turn a request is, and the agent's timeouts and log. */
export interface StepAttempt {
  step: number;
  /** "Model server … (model …)", the start of every error message. */
  where: string;
  config: AgentConfig;
  logger: Logger;
  /** The cap on open requests at this model server, when there is one. */
  slot?: { slots: ModelSlots; baseUrl: string };
}

/**
 * One model step: retried once when nothing was streamed yet, and after each 429 (or 503 with
 * `Retry-After`) as the server asks; else the turn ends naming server, attempt and fixer.
 */
export async function requestWithRetry(
  client: OpenAI,
  req: StepRequest,
  ctx: AgentTurnContext,
  recorder: TurnRecorder,
  { step, where, config, logger, slot }: StepAttempt,
): Promise<ShownStep> {
  let first: ModelRequestError | undefined;
  let rateLimited = 0;
  for (let attempt = 1; ; attempt++) {
    const before = recorder.content.length;
    let waited = false;
    const release = slot?.slots.enabled
      ? await slot.slots.acquire(slot.baseUrl, ctx.signal, (position) => {
          waited = true;
          logger.log({ turnId: ctx.turnId, step, position }, 'waiting for a model server slot');
          return ctx.emit({ type: 'turn.queued', position, modelSlot: true });
        })
      : undefined;
    try {
      if (waited) await recorder.progress.resumed(req.model);
      return await inSpan(
        'model.request',
        { 'gen_ai.request.model': req.model, 'corpus_chat.step': step },
        () => streamStep(client, req, ctx, recorder, config),
      );
    } catch (e) {
      if (ctx.signal.aborted) throw ctx.signal.reason ?? e;
      if (!(e instanceof ModelRequestError)) throw e;
      const streamed = recorder.content.length > before;
      logger.warn(
        { turnId: ctx.turnId, step, attempt, status: e.status, error: e.message },
        'model request failed',
      );
      if (e.contextExceeded) throw e;
      // A 429, or a 503 that says when to come back: wait as told, a few times.
      const busy = e.status === 429 || (e.status === 503 && e.retryAfterMs !== undefined);
      if (busy && !streamed) {
        const wait = e.retryAfterMs ?? config.retryDelayMs;
        if (rateLimited < MAX_RATE_LIMIT_RETRIES && wait <= MAX_RATE_LIMIT_WAIT_MS) {
          rateLimited++;
          await sleep(wait, ctx.signal);
          continue;
        }
        throw new AgentTurnError(
          e.code,
          `${where}: ${e.message}; the server is busy${rateLimited ? ` (waited ${rateLimited} time${rateLimited > 1 ? 's' : ''} as it asked)` : ''}${e.retryAfterMs !== undefined ? ` and asks to wait ${fmtMs(e.retryAfterMs)} more` : ''}. Try again later.`,
        );
      }
      if (!first && e.retryable && !streamed) {
        first = e;
        await sleep(config.retryDelayMs, ctx.signal);
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
      const advice =
        e.code === 'MODEL_UNAVAILABLE' || e.code === 'TIMEOUT'
          ? ' An administrator can check the model server under Settings → Test connection.'
          : '';
      const said = `${e.message}${tried}`;
      throw new AgentTurnError(e.code, `${where}: ${said}${/[.!?]$/.test(said) ? '' : '.'}${advice}`);
    } finally {
      await release?.();
    }
  }
}
