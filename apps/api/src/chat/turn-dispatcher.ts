import { setImmediate } from 'node:timers/promises';
import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import {
  CHAT_TURNS_QUEUE,
  type ChatEventBody,
  JobNames,
  type RunTurnJobData,
  type RunTurnJobResult,
  type TurnErrorCode,
} from '@corpus-chat/contracts';
import { type StartedTurn, TurnLedger } from '@corpus-chat/corpus-queries';
import { TurnCancelSignals, TurnEventBus, turnTrace, withTimeout } from '@corpus-chat/server-core';
import { ApiEnv } from '../config/api-env';

export type TurnQueue = Queue<RunTurnJobData, RunTurnJobResult, typeof JobNames.runTurn>;

/** Redis (the queue or the event bus) failed or did not answer in time on a request path: answer 503. */
export class TurnQueueUnavailableError extends Error {
  constructor(what: string, cause: unknown) {
    super(`${what}: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'TurnQueueUnavailableError';
  }
}

/** How an API-side end of a turn is recorded. */
export type ApiTurnEnd = { kind: 'cancelled' } | { kind: 'error'; code: TurnErrorCode; message: string };

/**
 * The API's side of a turn's life in Redis: enqueueing (the `turn.queued` event, then the BullMQ
 * job with `jobId = turnId`), cancelling (signal the worker; a job still waiting is removed and
 * the turn ended here), and noticing turns whose job is gone. Every Redis call is bounded by
 * `REDIS_REQUEST_TIMEOUT_MS` and fails as `TurnQueueUnavailableError`.
 */
@Injectable()
export class TurnDispatcher {
  private readonly logger = new Logger(TurnDispatcher.name);

  constructor(
    @InjectQueue(CHAT_TURNS_QUEUE) private readonly queue: TurnQueue,
    private readonly bus: TurnEventBus,
    private readonly cancels: TurnCancelSignals,
    private readonly ledger: TurnLedger,
    private readonly env: ApiEnv,
  ) {}

  private async redis<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(call(), this.env.REDIS_REQUEST_TIMEOUT_MS, what);
    } catch (e) {
      throw new TurnQueueUnavailableError(what, e);
    }
  }

  /**
   * Publishes `turn.queued` (seq 1) and adds the job. Called inside the transaction that stores
   * the turn, so a failure here rolls the turn and its user message back.
   */
  async enqueue(turn: StartedTurn): Promise<void> {
    turnTrace.mark(turn.turnId, 'api.enqueue');
    await this.redis('publish turn.queued', () =>
      this.bus.publish(turn.chatId, turn.turnId, { type: 'turn.queued', position: turn.queuePosition }),
    );
    // Redis sent the event to this instance's subscriber with the script's reply: let the relay
    // forward it to the sockets before the job's add takes the event loop.
    await setImmediate();
    const data: RunTurnJobData = {
      turnId: turn.turnId,
      chatId: turn.chatId,
      ownerId: turn.ownerId,
      userMessageId: turn.userMessageId,
    };
    await this.redis('add turn job', () =>
      this.queue.add(JobNames.runTurn, data, {
        jobId: turn.turnId,
        attempts: this.env.JOB_ATTEMPTS,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: 3600, count: 10_000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      }),
    );
    turnTrace.mark(turn.turnId, 'api.job-added');
    this.logger.log(`turn ${turn.turnId} queued in chat ${turn.chatId} (position ${turn.queuePosition})`);
  }

  /**
   * Cancels a queued or running turn. Always sets the cancel signal (a worker that picks the job
   * up later sees it at start); a job not running is removed from the queue and the turn is ended
   * here as `cancelled`. Returns `ended` in that case, `signalled` when a worker runs it (it stops
   * and reports `turn.cancelled` itself).
   */
  async cancel(turnId: string, chatId: string): Promise<'ended' | 'signalled'> {
    await this.redis('request cancel', () => this.cancels.request(turnId));
    const state = await this.redis('read job state', () => this.queue.getJobState(turnId));
    if (state === 'active') return 'signalled';
    if (state !== 'unknown' && state !== 'completed' && state !== 'failed') {
      const removed = await this.redis('remove job', () => this.queue.remove(turnId));
      // 0: a worker locked it between the two calls; it will find the cancel signal at start.
      if (!removed) return 'signalled';
    }
    await this.end(turnId, chatId, { kind: 'cancelled' });
    return 'ended';
  }

  /**
   * Whether a queued/running turn has no live job any more (Redis lost it, or the job ended without
   * ending the turn): such a turn would block its thread forever.
   */
  async isOrphaned(turnId: string): Promise<boolean> {
    const state = await this.redis('read job state', () => this.queue.getJobState(turnId));
    return state === 'unknown' || state === 'completed' || state === 'failed';
  }

  /**
   * Ends a turn from the API (stores an empty `cancelled`/`error` answer) and publishes the
   * terminal event, unless the turn already ended. A failed publish is logged: the stored state is
   * what a reload shows.
   */
  async end(turnId: string, chatId: string, how: ApiTurnEnd): Promise<void> {
    const result = await this.ledger.finish(
      turnId,
      how.kind === 'cancelled'
        ? { status: 'cancelled', content: '', metadata: { toolCalls: [] } }
        : {
            status: 'error',
            content: '',
            metadata: { toolCalls: [], error: { code: how.code, message: how.message } },
            errorCode: how.code,
          },
    );
    if (result.kind !== 'finished') return;
    const event: ChatEventBody =
      how.kind === 'cancelled'
        ? { type: 'turn.cancelled', messageId: result.messageId }
        : { type: 'turn.error', code: how.code, message: how.message };
    await this.bus
      .publish(chatId, turnId, event)
      .catch((e: Error) =>
        this.logger.warn(`turn ${turnId} ended but ${event.type} was not published: ${e.message}`),
      );
    this.logger.log(`turn ${turnId} ended by the API (${how.kind})`);
  }

  /**
   * Waits up to `ms` for the turns to leave `queued`/`running` (their worker stores the partial
   * answer after a cancel). Returns those still active.
   */
  async waitUntilEnded(turnIds: string[], ms: number): Promise<string[]> {
    const until = Date.now() + ms;
    let active = await this.ledger.stillActive(turnIds);
    while (active.length && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      active = await this.ledger.stillActive(active);
    }
    return active;
  }
}
