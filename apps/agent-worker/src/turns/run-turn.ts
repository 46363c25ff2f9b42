import { Inject, Injectable, Logger } from '@nestjs/common';
import { DelayedError } from 'bullmq';
import { runTurnJobDataSchema, type RunTurnJobData, type RunTurnJobResult } from '@corpus-chat/contracts';
import { TurnLedger, type TurnRunStart } from '@corpus-chat/persistence';
import {
  AGENT_RUNNER,
  type AgentRunner,
  AgentTurnError,
  isDatabaseUnavailable,
  type RunnerEvent,
  TurnCancelSignals,
  TurnEventBus,
  turnTrace,
} from '@corpus-chat/server-core';
import { WorkerEnv } from '../config/worker-env';
import { parseJobData } from '../job-data';
import { AnswerCollector } from './answer-collector';
import { CancelTurn } from './cancel-turn';
import { EndTurn } from './end-turn';
import { RecoverTurn } from './recover-turn';
import { RunningTurns } from './running-turns';
import { TurnEventStream } from './turn-event-stream';
import { TurnAbort, TurnAttemptError, TurnFailedError } from './turn-errors';
import { WORKER_ID } from './worker-id';

/** One attempt of a turn job. */
export interface RunTurnCommand {
  /** The job's data, validated here. */
  data: unknown;
  attempt: number;
  /** Hands the job back to the queue at shutdown; without it, a shutdown fails the attempt. */
  handBack?: () => Promise<void>;
}

/**
 * One attempt of a turn: loads and checks it, runs the `AgentRunner` with an AbortSignal, publishes
 * events in order and stores the answer (`EndTurn`); an answer already stored goes to `RecoverTurn`,
 * a cancel to `CancelTurn`. Throws `TurnAttemptError` (retry), `TurnFailedError` (no retry) or
 * `DelayedError` (shutdown).
 */
@Injectable()
export class RunTurn {
  private readonly logger = new Logger(RunTurn.name);

  constructor(
    private readonly ledger: TurnLedger,
    private readonly bus: TurnEventBus,
    private readonly cancels: TurnCancelSignals,
    @Inject(AGENT_RUNNER) private readonly runner: AgentRunner,
    @Inject(WORKER_ID) private readonly workerId: string,
    private readonly env: WorkerEnv,
    private readonly running: RunningTurns,
    private readonly endTurn: EndTurn,
    private readonly cancelTurn: CancelTurn,
    private readonly recoverTurn: RecoverTurn,
  ) {}

  /** Resolves with the stored message id (`''` when none was stored by this attempt). */
  async execute(command: RunTurnCommand): Promise<RunTurnJobResult> {
    const data = parseJobData(runTurnJobDataSchema, command.data);
    const controller = new AbortController();
    // Watch for a cancel while the turn loads: the watch looks at the cancel key once, after it
    // subscribed, so a cancel requested before or during the load is seen either way.
    const watching = this.cancels.watch(data.turnId, () => controller.abort(new TurnAbort('cancelled')));
    watching.catch(() => undefined);
    let loaded: TurnRunStart | null;
    try {
      // Marked running when the job matches it (one statement).
      const claim = { ...data, attempt: command.attempt, workerId: this.workerId };
      loaded = await this.ledger.startRun(data.turnId, claim, { historyLimit: this.runner.historyLimit });
    } catch (e) {
      void watching.then(
        (stop) => stop(),
        () => undefined,
      );
      throw e;
    }
    const stopWatching = await watching;
    try {
      return await this.runLoaded(command, data, loaded, controller);
    } finally {
      stopWatching();
    }
  }

  /** The rest of `execute` once the turn was loaded (and, when it matched, marked running). */
  private async runLoaded(
    command: RunTurnCommand,
    data: RunTurnJobData,
    loaded: TurnRunStart | null,
    controller: AbortController,
  ): Promise<RunTurnJobResult> {
    if (!loaded) {
      this.logger.log(
        `turn ${data.turnId}: no such turn (its thread was deleted, or its post undone); nothing to run`,
      );
      return { messageId: '', status: 'cancelled' };
    }
    const { turnId, chatId } = loaded;
    const attempt = command.attempt;
    turnTrace.mark(turnId, 'worker.loaded');
    if (
      loaded.ownerId !== data.ownerId ||
      chatId !== data.chatId ||
      loaded.userMessageId !== data.userMessageId
    ) {
      this.logger.warn(
        `turn ${turnId}: job names owner ${data.ownerId} / chat ${data.chatId}, ` +
          'which do not match the thread; refused',
      );
      throw new TurnFailedError(
        'FORBIDDEN',
        'This turn does not match its thread or owner, so it was not run.',
        { content: '', metadata: { toolCalls: [] } },
      );
    }
    if (loaded.answer) return this.recoverTurn.execute(loaded, loaded.answer);
    if (controller.signal.aborted) return this.cancelTurn.execute(turnId);
    if (!loaded.started) {
      this.logger.log(`turn ${turnId}: already ended (cancelled or failed elsewhere); not running`);
      return { messageId: '', status: 'cancelled' };
    }
    // Read while turn.started is published: the two round trips overlap.
    const attachment = this.ledger.attachment(turnId);
    attachment.catch(() => undefined); // awaited below; a rejection there fails the turn
    await this.bus.publish(chatId, turnId, { type: 'turn.started', workerId: this.workerId, attempt });
    this.logger.log(`turn ${turnId} started (attempt ${attempt}) in chat ${chatId}`);

    const collector = new AnswerCollector();
    const deadline = Date.now() + this.env.TURN_TIMEOUT_MS;
    const bus = this.endTurn.patientBus(turnId, deadline);
    const stream = new TurnEventStream(
      (event) => bus.publish(chatId, turnId, event),
      this.env.TEXT_DELTA_COALESCE_MS,
    );
    const emit = (event: RunnerEvent): Promise<void> => {
      if (controller.signal.aborted) return Promise.resolve();
      collector.add(event);
      return stream.emit(event);
    };

    this.running.add(turnId, controller);
    const timer = setTimeout(() => controller.abort(new TurnAbort('timeout')), this.env.TURN_TIMEOUT_MS);
    const aborted = new Promise<never>((_, reject) => {
      if (controller.signal.aborted) reject(controller.signal.reason);
      else
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    aborted.catch(() => undefined);
    try {
      const about = await attachment;
      turnTrace.mark(turnId, 'worker.runner-start');
      const run = this.runner.run({
        chatId,
        turnId,
        ownerId: loaded.ownerId,
        history: loaded.history,
        userMessage: loaded.userContent,
        language: data.language ?? 'en',
        attachment: about,
        signal: controller.signal,
        emit,
      });
      run.catch(() => undefined); // when the abort wins the race, the runner's own rejection is expected
      const outcome = await Promise.race([run, aborted]);
      turnTrace.mark(turnId, 'worker.runner-end');
      // Stored at once, even while Redis is away; turn.done follows the events still held.
      const result = await this.endTurn
        .execute(
          turnId,
          {
            kind: 'done',
            content: outcome.content,
            metadata: { ...outcome.metadata, attempt },
            model: outcome.metadata.model ?? null,
            claim: { attempt, workerId: this.workerId },
          },
          deadline,
          stream,
        )
        .catch((e: unknown) => {
          // Running the turn again would not help: the answer is there, Postgres is not.
          if (!isDatabaseUnavailable(e)) throw e;
          throw new TurnFailedError(
            'INTERNAL',
            'The answer could not be stored: the database did not answer within the time limit ' +
              'of the turn. Ask again.',
            collector.partial(),
          );
        });
      turnTrace.mark(turnId, 'worker.finished');
      if (result.kind !== 'finished') {
        this.logger.log(
          `turn ${turnId}: answered, but the turn had already ended (${result.kind}); answer dropped`,
        );
        return { messageId: result.kind === 'already' ? (result.messageId ?? '') : '', status: 'cancelled' };
      }
      const verification = outcome.metadata.verification;
      this.logger.log(
        {
          turnId,
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
      return await this.stopped(turnId, e, controller.signal, collector, command);
    } finally {
      clearTimeout(timer);
      this.running.delete(turnId);
    }
  }

  /** Why the run stopped short of an answer, told to BullMQ (or ended here, when cancelled). */
  private async stopped(
    turnId: string,
    e: unknown,
    signal: AbortSignal,
    collector: AnswerCollector,
    command: RunTurnCommand,
  ): Promise<RunTurnJobResult> {
    const partial = collector.partial();
    const reason = signal.aborted ? (signal.reason as TurnAbort) : null;
    if (reason?.kind === 'cancelled') return this.cancelTurn.execute(turnId, partial, command.attempt);
    if (reason?.kind === 'lock-lost') {
      this.logger.warn(`turn ${turnId}: its job lock was lost to another worker; stopped here`);
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
    if (reason?.kind === 'shutdown' && command.handBack) {
      this.logger.log(`turn ${turnId}: worker shutting down; handing the turn back to the queue`);
      await command.handBack();
      throw new DelayedError();
    }
    if (e instanceof AgentTurnError) {
      if (e.retryable) throw new TurnAttemptError(e.code, e.message, partial);
      throw new TurnFailedError(e.code, e.message, partial);
    }
    this.logger.error(`turn ${turnId}: the agent failed: ${(e as Error)?.stack ?? String(e)}`);
    throw new TurnAttemptError('INTERNAL', 'The agent failed unexpectedly. Try asking again.', partial);
  }
}
