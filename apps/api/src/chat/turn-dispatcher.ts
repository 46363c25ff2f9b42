import { setImmediate } from 'node:timers/promises';
import { InjectQueue } from '@nestjs/bullmq';
import { type BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import {
  CHAT_TURNS_QUEUE,
  JobNames,
  type CancelTurnResponse,
  type OperatorLanguage,
  type RunTurnJobData,
  type RunTurnJobResult,
  WEBHOOKS_QUEUE,
} from '@corpus-chat/contracts';
import { operatorLanguage, type StartedTurn, TurnLedger } from '@corpus-chat/persistence';
import {
  finishTurn,
  isLiveJob,
  jobAddOptions,
  recoverJob,
  type Recovery,
  settleBullConnections,
  type FinishTurnOutcome,
  TurnCancelSignals,
  TurnEventBus,
  TerminalEventNotPublishedError,
  type TurnEnding,
  turnTrace,
  redisHang,
  withTimeout,
  traceCarrier,
  type WebhookQueue,
} from '@corpus-chat/server-core';
import { ApiEnv } from '../config/api-env';
import { JobSweeper } from '../jobs/job-sweeper';

export type TurnQueue = Queue<RunTurnJobData, RunTurnJobResult, typeof JobNames.runTurn>;

/** Redis (the queue or the event bus) failed or did not answer in time on a request path: answer 503. */
export class TurnQueueUnavailableError extends Error {
  constructor(what: string, cause: unknown) {
    super(`${what}: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'TurnQueueUnavailableError';
  }
}

/** A stored turn as its job names it. */
export type QueuedTurn = Pick<StartedTurn, 'turnId' | 'chatId' | 'ownerId' | 'userMessageId'>;

/**
 * The API's side of a turn in Redis: enqueue (job id = turn id, so adding twice is a no-op),
 * cancel, recover missing jobs, forget deleted threads. Every call is bounded by
 * `REDIS_REQUEST_TIMEOUT_MS` and fails as `TurnQueueUnavailableError`.
 */
@Injectable()
export class TurnDispatcher implements BeforeApplicationShutdown {
  private readonly logger = new Logger(TurnDispatcher.name);

  constructor(
    @InjectQueue(CHAT_TURNS_QUEUE) private readonly queue: TurnQueue,
    private readonly bus: TurnEventBus,
    private readonly cancels: TurnCancelSignals,
    private readonly ledger: TurnLedger,
    private readonly env: ApiEnv,
    private readonly db: DataSource,
    @InjectQueue(WEBHOOKS_QUEUE) private readonly webhooks: WebhookQueue & Queue,
    sweeper: JobSweeper,
  ) {
    sweeper.register({
      name: 'turn',
      stale: (minAgeMs) => this.ledger.staleActive(minAgeMs),
      id: (turn) => turn.turnId,
      recover: (turn) => this.recover(turn),
    });
  }

  /** Nest closes the queue next; a connection still connecting must finish first (see `settleBullConnections`). */
  beforeApplicationShutdown(): Promise<void> {
    return settleBullConnections([this.queue, this.webhooks], this.env.REDIS_REQUEST_TIMEOUT_MS);
  }

  private async redis<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await redisHang.run(this.env.REDIS_URL, what, () =>
        withTimeout(call(), this.env.REDIS_REQUEST_TIMEOUT_MS, what),
      );
    } catch (e) {
      throw new TurnQueueUnavailableError(what, e);
    }
  }

  /**
   * Publishes `turn.queued` and adds the job of a committed turn. Rejects with
   * `TurnQueueUnavailableError`; the caller undoes the turn (or the sweep re-adds the job).
   */
  async enqueue(turn: StartedTurn, language?: OperatorLanguage): Promise<void> {
    turnTrace.mark(turn.turnId, 'api.enqueue');
    await this.redis('publish turn.queued', () =>
      this.bus.publish(turn.chatId, turn.turnId, { type: 'turn.queued', position: turn.queuePosition }),
    );
    // Redis answers the publisher before its subscribers: the relay to the thread's sockets, read in
    // the same poll, goes out before the add's work (bench scenario 2, first event).
    await setImmediate();
    await this.addJob(turn, language);
    turnTrace.mark(turn.turnId, 'api.job-added');
    this.logger.log(`turn ${turn.turnId} queued in chat ${turn.chatId} (position ${turn.queuePosition})`);
  }

  private async addJob(turn: QueuedTurn, language?: OperatorLanguage): Promise<void> {
    const data: RunTurnJobData = {
      turnId: turn.turnId,
      chatId: turn.chatId,
      ownerId: turn.ownerId,
      userMessageId: turn.userMessageId,
      // The language when the question is queued: a later switch does not change this answer's.
      language: language ?? (await operatorLanguage(this.db, turn.ownerId)),
      ...traceCarrier(),
    };
    await this.redis('add turn job', () =>
      this.queue.add(JobNames.runTurn, data, jobAddOptions(turn.turnId, this.env.JOB_ATTEMPTS)),
    );
  }

  /**
   * Cancels a turn: always sets the cancel signal; an unstarted turn is removed from the queue and
   * ended here (`cancelled`), a started one is left to its worker (`stopping`). `finished`: it had
   * ended otherwise (its worker stored the answer between the signal and the job-state read).
   */
  async cancel(turnId: string): Promise<CancelTurnResponse['state']> {
    await this.redis('request cancel', () => this.cancels.request(turnId));
    const state = await this.redis('read job state', () => this.queue.getJobState(turnId));
    if (state === 'active') return 'stopping';
    // Back in the queue while started: between attempts, or its worker stalled past its lock and
    // may still be running it; whoever runs it next finds the signal and keeps the partial answer.
    const live = isLiveJob(state);
    if (live && (await this.ledger.findActive(turnId))?.status === 'running') return 'stopping';
    if (live) {
      const removed = await this.redis('remove job', () => this.queue.remove(turnId));
      // 0: a worker locked it between the two calls; it will find the cancel signal at start.
      if (!removed) return 'stopping';
    }
    // Not live: Redis lost the job, or its worker ended the turn since the signal (often by
    // obeying it, which the ledger then reports as `already` cancelled).
    const outcome = await this.finish(turnId, { kind: 'cancelled' });
    const ended = outcome?.kind !== 'already' || outcome.status === 'cancelled';
    return outcome?.kind !== 'gone' && ended ? 'cancelled' : 'finished';
  }

  /**
   * The sweep's rule (`recoverJob`) for an active turn: a queued turn without a job gets it again;
   * one whose job is gone or ended without ending it (Redis lost it, or the last failure could not
   * be stored) ends as `WORKER_LOST`, unless its running worker still writes its heartbeat.
   */
  async recover(
    turn: QueuedTurn & { status: 'queued' | 'running'; workerAlive: boolean },
  ): Promise<Recovery> {
    const state = await this.redis('read job state', () => this.queue.getJobState(turn.turnId));
    const queued = turn.status === 'queued';
    return recoverJob(
      state,
      { queued, workerAlive: !queued && turn.workerAlive },
      {
        requeue: async () => {
          await this.addJob(turn);
          this.logger.warn(`turn ${turn.turnId} was queued without a job; job added again`);
        },
        end: async () => {
          await this.finish(turn.turnId, {
            kind: 'error',
            code: 'WORKER_LOST',
            message: 'This turn was lost (its job disappeared from the queue). Ask again.',
          });
          this.logger.warn(`turn ${turn.turnId} had no live job (${state}); ended as WORKER_LOST`);
          return true;
        },
      },
    );
  }

  /** Ends a turn through `finishTurn`; an unpublished terminal event is logged, not thrown (null). */
  async finish(turnId: string, ending: TurnEnding): Promise<FinishTurnOutcome | null> {
    try {
      const outcome = await finishTurn(
        { ledger: this.ledger, bus: this.bus, webhooks: this.webhooks },
        turnId,
        ending,
      );
      if (outcome.kind === 'finished') this.logger.log(`turn ${turnId} ended by the API (${ending.kind})`);
      return outcome;
    } catch (e) {
      if (!(e instanceof TerminalEventNotPublishedError)) throw e;
      this.logger.warn(e.message);
      return null;
    }
  }

  /** Removes a deleted thread's turns from Redis; a running job stays and its worker stores nothing. */
  async forget(turnIds: readonly string[]): Promise<void> {
    if (!turnIds.length) return;
    await this.redis('remove the thread’s jobs', () =>
      Promise.all(turnIds.map((id) => this.queue.remove(id))),
    );
    await this.redis('delete the thread’s turn keys', () =>
      Promise.all([this.bus.forget(turnIds), this.cancels.forget(turnIds)]),
    );
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
