import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DelayedError, type Job } from 'bullmq';
import {
  runTurnJobDataSchema,
  type ChatEventBody,
  type RunTurnJobData,
  type RunTurnJobResult,
  type TurnErrorCode,
  WEBHOOKS_QUEUE,
} from '@corpus-chat/contracts';
import { TURN_HEARTBEAT_MS, TurnLedger, type TurnRunStart } from '@corpus-chat/corpus-queries';
import { parseJobData } from '../job-data';
import {
  AGENT_RUNNER,
  type AgentRunner,
  AgentTurnError,
  finishTurn,
  type HistoryMessage,
  isDatabaseUnavailable,
  retryWhileDatabaseUnavailable,
  retryWhileRedisUnavailable,
  type RunnerEvent,
  STALLED_LIMIT_REASON,
  TurnCancelSignals,
  type TurnEnding,
  TurnEventBus,
  terminalEventOfStored,
  queueTurnWebhooks,
  turnTrace,
  type WebhookQueue,
} from '@corpus-chat/server-core';
import { WorkerEnv } from '../config/worker-env';
import { AnswerCollector } from './answer-collector';
import { TurnEventStream } from './turn-event-stream';
import { type PartialAnswer, TurnAbort, TurnAttemptError, TurnFailedError } from './turn-errors';

/** Nest token of this worker's id (shown in `turn.started` and logs). */
export const WORKER_ID = Symbol('WORKER_ID');

const emptyPartial = (): PartialAnswer => ({ content: '', metadata: { toolCalls: [] } });

/**
 * Runs one turn job: loads and checks the turn, runs the `AgentRunner` with an AbortSignal, publishes
 * events in order and ends the turn through `finishTurn`. Failures throw so BullMQ retries;
 * `failTurn` ends the turn after its last attempt.
 */
@Injectable()
export class TurnExecutor {
  private readonly logger = new Logger(TurnExecutor.name);
  private readonly running = new Map<string, AbortController>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly ledger: TurnLedger,
    private readonly bus: TurnEventBus,
    private readonly cancels: TurnCancelSignals,
    @Inject(AGENT_RUNNER) private readonly runner: AgentRunner,
    @Inject(WORKER_ID) private readonly workerId: string,
    private readonly env: WorkerEnv,
    @InjectQueue(WEBHOOKS_QUEUE) private readonly webhooks: WebhookQueue,
  ) {}

  /**
   * Tells the API's sweep a worker is on each running turn, even when Redis lost its job: one
   * statement for all of them every `TURN_HEARTBEAT_MS`, stopped while none runs.
   */
  private beat(): void {
    const ids = [...this.running.keys()];
    if (!ids.length) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
      return;
    }
    this.ledger
      .heartbeat(ids)
      .catch((e: Error) => this.logger.warn(`heartbeat of ${ids.length} turn(s) not stored: ${e.message}`));
  }

  /** Turns running in this process now. */
  get runningTurns(): number {
    return this.running.size;
  }

  /**
   * Stops turn `turnId` here without storing anything: its job lock was lost and BullMQ's stalled
   * check handed the job to another worker, so only that one may go on. Returns whether it ran.
   */
  abortLost(turnId: string): boolean {
    const controller = this.running.get(turnId);
    controller?.abort(new TurnAbort('lock-lost'));
    return !!controller;
  }

  /** Aborts every running turn (shutdown timeout): they are handed back to the queue. */
  abortAll(kind: 'shutdown'): void {
    for (const controller of this.running.values()) controller.abort(new TurnAbort(kind));
  }

  /**
   * Processes one job (`token`: its lock). Resolves with the message id; throws `TurnAttemptError`
   * (retry), `TurnFailedError` (no retry) or `DelayedError` (shutdown).
   */
  async execute(job: Job<RunTurnJobData, RunTurnJobResult>, token?: string): Promise<RunTurnJobResult> {
    const data = parseJobData(runTurnJobDataSchema, job.data);
    const attempt = Math.max(job.attemptsStarted, job.attemptsMade + 1, 1);
    const controller = new AbortController();
    // Watch for a cancel while the turn loads: the watch looks at the cancel key once, after it
    // subscribed, so a cancel requested before or during the load is seen either way.
    const watching = this.cancels.watch(data.turnId, () => controller.abort(new TurnAbort('cancelled')));
    watching.catch(() => undefined);
    let loaded: TurnRunStart | null;
    try {
      loaded = await this.loadTurn(data, attempt);
    } catch (e) {
      void watching.then(
        (stop) => stop(),
        () => undefined,
      );
      throw e;
    }
    const stopWatching = await watching;
    try {
      return await this.runLoaded(job, token, data, attempt, loaded, controller);
    } finally {
      stopWatching();
    }
  }

  /** The rest of `execute` once the turn was loaded (and, when it matched, marked running). */
  private async runLoaded(
    job: Job<RunTurnJobData, RunTurnJobResult>,
    token: string | undefined,
    data: RunTurnJobData,
    attempt: number,
    loaded: TurnRunStart | null,
    controller: AbortController,
  ): Promise<RunTurnJobResult> {
    if (!loaded) {
      this.logger.log(
        `turn ${data.turnId}: no such turn (its thread was deleted, or its post undone); nothing to run`,
      );
      return { messageId: '', status: 'cancelled' };
    }
    const turn = { id: loaded.turnId };
    turnTrace.mark(turn.id, 'worker.loaded');
    const chatId = loaded.chatId;
    if (
      loaded.ownerId !== data.ownerId ||
      chatId !== data.chatId ||
      loaded.userMessageId !== data.userMessageId
    ) {
      this.logger.warn(
        `turn ${turn.id}: job names owner ${data.ownerId} / chat ${data.chatId}, which do not match the thread; refused`,
      );
      throw new TurnFailedError(
        'FORBIDDEN',
        'This turn does not match its thread or owner, so it was not run.',
        emptyPartial(),
      );
    }

    const existing = loaded.answer;
    if (existing) {
      // An earlier attempt stored the answer and died before (or while) reporting it.
      this.logger.log(
        `turn ${turn.id}: already answered by an earlier attempt (message ${existing.id}); not running again`,
      );
      await this.publish(
        chatId,
        turn.id,
        terminalEventOfStored(existing.status, existing.id, existing.metadata),
      );
      await queueTurnWebhooks(this.webhooks, turn.id);
      return { messageId: existing.id, status: existing.status };
    }
    if (controller.signal.aborted) return this.storeCancelled(turn.id, emptyPartial());
    if (!loaded.started) {
      this.logger.log(`turn ${turn.id}: already ended (cancelled or failed elsewhere); not running`);
      return { messageId: '', status: 'cancelled' };
    }
    // Read while turn.started is published: the two round trips overlap.
    const attachment = this.ledger.attachment(turn.id);
    attachment.catch(() => undefined); // awaited below; a rejection there fails the turn
    await this.publish(chatId, turn.id, { type: 'turn.started', workerId: this.workerId, attempt });
    this.logger.log(`turn ${turn.id} started (attempt ${attempt}) in chat ${chatId}`);

    const history: HistoryMessage[] = loaded.history;
    const collector = new AnswerCollector();
    const deadline = Date.now() + this.env.TURN_TIMEOUT_MS;
    const bus = this.patientBus(turn.id, deadline);
    const stream = new TurnEventStream(
      (event) => bus.publish(chatId, turn.id, event),
      this.env.TEXT_DELTA_COALESCE_MS,
    );
    const emit = (event: RunnerEvent): Promise<void> => {
      if (controller.signal.aborted) return Promise.resolve();
      collector.add(event);
      return stream.emit(event);
    };

    this.running.set(turn.id, controller);
    this.heartbeat ??= setInterval(() => this.beat(), TURN_HEARTBEAT_MS).unref();
    const timer = setTimeout(() => controller.abort(new TurnAbort('timeout')), this.env.TURN_TIMEOUT_MS);
    const aborted = new Promise<never>((_, reject) => {
      if (controller.signal.aborted) reject(controller.signal.reason);
      else
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    aborted.catch(() => undefined);
    try {
      const about = await attachment;
      turnTrace.mark(turn.id, 'worker.runner-start');
      const run = this.runner.run({
        chatId,
        turnId: turn.id,
        ownerId: loaded.ownerId,
        history,
        userMessage: loaded.userContent,
        language: data.language ?? 'en',
        attachment: about,
        signal: controller.signal,
        emit,
      });
      run.catch(() => undefined); // when the abort wins the race, the runner's own rejection is expected
      const outcome = await Promise.race([run, aborted]);
      turnTrace.mark(turn.id, 'worker.runner-end');
      // Stored at once, even while Redis is away; turn.done follows the events still held.
      const result = await this.finish(
        turn.id,
        {
          kind: 'done',
          content: outcome.content,
          metadata: { ...outcome.metadata, attempt },
          model: outcome.metadata.model ?? null,
          claim: { attempt, workerId: this.workerId },
        },
        deadline,
        stream,
      ).catch((e: unknown) => {
        // Running the turn again would not help: the answer is there, Postgres is not.
        if (!isDatabaseUnavailable(e)) throw e;
        throw new TurnFailedError(
          'INTERNAL',
          'The answer could not be stored: the database did not answer within the time limit of the turn. Ask again.',
          collector.partial(),
        );
      });
      turnTrace.mark(turn.id, 'worker.finished');
      if (result.kind !== 'finished') {
        this.logger.log(
          `turn ${turn.id}: answered, but the turn had already ended (${result.kind}); answer dropped`,
        );
        return { messageId: result.kind === 'already' ? (result.messageId ?? '') : '', status: 'cancelled' };
      }
      const verification = outcome.metadata.verification;
      this.logger.log(
        {
          turnId: turn.id,
          messageId: result.messageId,
          verified: verification ? verification.unsupported.length === 0 : undefined,
          unsupported: verification?.unsupported.length,
        },
        'turn done',
      );
      return { messageId: result.messageId, status: 'complete' };
    } catch (e) {
      await stream.settled();
      if (e instanceof TurnFailedError) throw e;
      const partial = collector.partial();
      const reason = controller.signal.aborted ? (controller.signal.reason as TurnAbort) : null;
      if (reason?.kind === 'cancelled') return this.storeCancelled(turn.id, partial, attempt);
      if (reason?.kind === 'lock-lost') {
        this.logger.warn(`turn ${turn.id}: its job lock was lost to another worker; stopped here`);
        return { messageId: '', status: 'cancelled' };
      }
      if (reason?.kind === 'timeout') {
        const minutes = Math.round((this.env.TURN_TIMEOUT_MS / 60_000) * 10) / 10;
        throw new TurnFailedError(
          'TIMEOUT',
          `The answer took longer than the limit (${minutes} min) and was stopped.`,
          partial,
        );
      }
      if (reason?.kind === 'shutdown' && token) {
        this.logger.log(`turn ${turn.id}: worker shutting down; handing the turn back to the queue`);
        await job.moveToDelayed(Date.now(), token);
        throw new DelayedError();
      }
      if (e instanceof AgentTurnError) {
        if (e.retryable) throw new TurnAttemptError(e.code, e.message, partial);
        throw new TurnFailedError(e.code, e.message, partial);
      }
      this.logger.error(`turn ${turn.id}: the agent failed: ${(e as Error)?.stack ?? String(e)}`);
      throw new TurnAttemptError('INTERNAL', 'The agent failed unexpectedly. Try asking again.', partial);
    } finally {
      clearTimeout(timer);
      this.running.delete(turn.id);
    }
  }

  /** Ends a turn whose job failed for good: stores the partial answer as `error`, publishes `turn.error`. */
  async failTurn(job: Job<RunTurnJobData, RunTurnJobResult>, err: Error): Promise<void> {
    const turnId = job.data?.turnId;
    if (!runTurnJobDataSchema.shape.turnId.safeParse(turnId).success) {
      this.logger.error(`job ${job.id} failed with unusable data: ${err.message}`);
      return;
    }
    const known = err instanceof TurnFailedError || err instanceof TurnAttemptError ? err : null;
    let code: TurnErrorCode = known?.code ?? 'INTERNAL';
    let message = known?.message ?? 'The agent failed unexpectedly. Try asking again.';
    if (err.message === STALLED_LIMIT_REASON) {
      code = 'WORKER_LOST';
      message = 'The workers running this turn stopped responding, so it was given up. Ask again.';
    }
    // Postgres may be what failed the turn: keep trying to store the failure for as long as a job
    // lock lasts; after that the sweep ends the turn (its job is `failed`).
    const result = await this.finish(
      turnId,
      {
        kind: 'error',
        code,
        message,
        partial: known?.partial,
        attempt: job.attemptsStarted,
        storeMessage: code !== 'FORBIDDEN',
      },
      Date.now() + this.env.LOCK_DURATION_MS,
    );
    if (result.kind !== 'finished') {
      this.logger.log(
        `turn ${turnId}: failed after it had already ended (${result.kind}); nothing to report`,
      );
      return;
    }
    this.logger.warn(`turn ${turnId} ended in error ${code} after ${job.attemptsStarted} attempt(s)`);
  }

  private async storeCancelled(
    turnId: string,
    partial: PartialAnswer,
    attempt?: number,
  ): Promise<RunTurnJobResult> {
    const claim = attempt === undefined ? undefined : { attempt, workerId: this.workerId };
    const result = await this.finish(turnId, { kind: 'cancelled', partial, claim });
    if (result.kind === 'finished') {
      this.logger.log(`turn ${turnId} cancelled (message ${result.messageId})`);
      return { messageId: result.messageId, status: 'cancelled' };
    }
    return { messageId: result.kind === 'already' ? (result.messageId ?? '') : '', status: 'cancelled' };
  }

  /**
   * Every end of a turn in the worker: stored and published once (after the held `events`),
   * retrying with back-off while Postgres or Redis is down until `until` (default: one try).
   */
  private finish(turnId: string, ending: TurnEnding, until = 0, events?: TurnEventStream) {
    const patient = this.patientBus(turnId, until);
    const bus: Pick<TurnEventBus, 'publish'> = {
      publish: async (...args) => {
        await events?.settled();
        return patient.publish(...args);
      },
    };
    return retryWhileDatabaseUnavailable(
      () => finishTurn({ ledger: this.ledger, bus, webhooks: this.webhooks }, turnId, ending),
      until,
      (e, delayMs) =>
        this.logger.warn(
          `turn ${turnId}: the database is unreachable (${(e as Error).message}); storing its end again in ${delayMs} ms`,
        ),
    );
  }

  /**
   * The event bus, each publish retried while Redis is unreachable until `until` (epoch ms): a
   * turn's events wait out a short Redis outage (its restart) instead of failing the turn.
   */
  private patientBus(turnId: string, until: number): Pick<TurnEventBus, 'publish'> {
    return {
      publish: (chatId, id, event) =>
        retryWhileRedisUnavailable(
          () => this.bus.publish(chatId, id, event),
          until,
          (e) =>
            this.logger.warn(
              `turn ${turnId}: Redis is unreachable (${(e as Error).message}); holding its events until it is back`,
            ),
        ),
    };
  }

  private async publish(chatId: string, turnId: string, event: ChatEventBody): Promise<void> {
    await this.bus.publish(chatId, turnId, event);
  }

  /**
   * The turn, marked running when the job matches it (one statement). The API adds the job only
   * after the turn is committed, so a missing row means the thread was deleted or the post undone.
   */
  private loadTurn(data: RunTurnJobData, attempt: number): Promise<TurnRunStart | null> {
    const claim = {
      attempt,
      workerId: this.workerId,
      ownerId: data.ownerId,
      chatId: data.chatId,
      userMessageId: data.userMessageId,
    };
    return this.ledger.startRun(data.turnId, claim, { historyLimit: this.runner.historyLimit });
  }
}
