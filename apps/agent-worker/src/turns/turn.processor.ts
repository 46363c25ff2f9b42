import { InjectQueue, OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import {
  type BeforeApplicationShutdown,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Job, Queue } from 'bullmq';
import { CHAT_TURNS_QUEUE, type RunTurnJobData, type RunTurnJobResult } from '@corpus-chat/contracts';
import { inSpan, metrics, settleBullConnections, turnTrace, withTraceParent } from '@corpus-chat/server-core';
import { WorkerEnv } from '../config/worker-env';
import { FailTurn } from './fail-turn';
import { RunTurn } from './run-turn';
import { RunningTurns } from './running-turns';
import { TurnWarmup } from './turn-warmup';

/**
 * BullMQ glue of `chat-turns`: runs `RunTurn`, ends turns after their last failed attempt
 * (`FailTurn`), and on shutdown lets running turns finish (≤ `SHUTDOWN_TIMEOUT_MS`).
 * `WorkerModule.forRoot` adds `@Processor` from the validated settings.
 */
@Injectable()
export class TurnProcessor extends WorkerHost implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(TurnProcessor.name);
  private readonly failing = new Set<Promise<void>>();

  constructor(
    private readonly runTurn: RunTurn,
    private readonly failTurn: FailTurn,
    private readonly running: RunningTurns,
    private readonly warmup: TurnWarmup,
    private readonly env: WorkerEnv,
    @InjectQueue(CHAT_TURNS_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  /**
   * Warms up, then starts taking jobs (the worker is created with `autorun: false`): a job waiting
   * at start would otherwise pay for the warm-up. Nest listens (the health check answers) only after.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.warmup.run();
    this.worker.run().catch((e: Error) => this.logger.error(`queue worker stopped: ${e.message}`));
  }

  process(job: Job<RunTurnJobData, RunTurnJobResult>, token?: string): Promise<RunTurnJobResult> {
    const attributes = { 'corpus_chat.turn_id': String(job.id), 'corpus_chat.attempt': job.attemptsStarted };
    return withTraceParent(job.data?.traceparent, () =>
      inSpan('turn.run', attributes, () => this.run(job, token)),
    );
  }

  private async run(job: Job<RunTurnJobData, RunTurnJobResult>, token?: string): Promise<RunTurnJobResult> {
    turnTrace.mark(String(job.id), 'worker.picked');
    if (job.attemptsStarted <= 1) metrics.turnWait.observe(Math.max(0, Date.now() - job.timestamp) / 1000);
    const end = metrics.turnDuration.startTimer();
    try {
      const result = await this.runTurn.execute({
        data: job.data,
        attempt: Math.max(job.attemptsStarted, job.attemptsMade + 1, 1),
        handBack: token ? () => job.moveToDelayed(Date.now(), token) : undefined,
      });
      end({ outcome: result.status });
      return result;
    } catch (e) {
      end({ outcome: 'error' });
      throw e;
    }
  }

  @OnWorkerEvent('failed')
  onFailed(job: Job<RunTurnJobData, RunTurnJobResult> | undefined, err: Error): void {
    if (!job) return;
    if (!job.finishedOn) {
      this.logger.warn(
        `turn ${job.data?.turnId}: attempt ${job.attemptsStarted} failed (${err.message}); retrying`,
      );
      return;
    }
    const done: Promise<void> = this.failTurn
      .execute(job, err)
      .catch((e: Error) =>
        this.logger.error(`turn ${job.data?.turnId}: could not record its failure: ${e.message}`),
      )
      .finally(() => this.failing.delete(done));
    this.failing.add(done);
  }

  /**
   * A lock that could not be renewed: if the job is still in Redis another worker took it, so stop
   * here; a job Redis lost keeps running and stores its answer in Postgres.
   */
  @OnWorkerEvent('lockRenewalFailed')
  async onLockRenewalFailed(jobIds: string[]): Promise<void> {
    for (const jobId of jobIds) {
      const job = await this.queue.getJob(jobId).catch(() => undefined);
      if (job && this.running.abortLost(jobId))
        this.logger.warn(`turn ${jobId}: job lock lost while running; the turn stops on this worker`);
    }
  }

  @OnWorkerEvent('error')
  onError(err: Error): void {
    this.logger.warn(`queue worker error: ${err.message}`);
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    const running = this.running.size;
    this.logger.log(
      `shutting down (${signal ?? 'close'}): waiting for ${running} running turn(s), up to ${this.env.SHUTDOWN_TIMEOUT_MS} ms`,
    );
    let closing: Promise<void>;
    try {
      await settleBullConnections([this.worker, this.queue], 2000);
      closing = this.worker.close();
    } catch (e) {
      this.logger.warn(`no queue worker to close: ${(e as Error).message}`);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      closing.then(() => false),
      new Promise<boolean>(
        (resolve) => (timer = setTimeout(() => resolve(true), this.env.SHUTDOWN_TIMEOUT_MS)),
      ),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      this.logger.warn(
        `turns still running after ${this.env.SHUTDOWN_TIMEOUT_MS} ms; handing them back to the queue`,
      );
      this.running.abortAll('shutdown');
      await closing;
    }
    await Promise.all([...this.failing]);
  }
}
