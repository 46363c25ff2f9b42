import { Injectable, Logger } from '@nestjs/common';
import { runTurnJobDataSchema, type TurnErrorCode } from '@corpus-chat/contracts';
import { STALLED_LIMIT_REASON } from '@corpus-chat/server-core';
import { WorkerEnv } from '../config/worker-env';
import { EndTurn } from './end-turn';
import { TurnAttemptError, TurnFailedError } from './turn-errors';

/** The failed job (a BullMQ `Job`): its id, its data (checked here), the attempts it started. */
export interface FailedTurnJob {
  id?: string;
  data?: { turnId?: unknown };
  attemptsStarted: number;
}

/** Ends a turn whose job failed for good: stores the partial answer as `error`, publishes `turn.error`. */
@Injectable()
export class FailTurn {
  private readonly logger = new Logger(FailTurn.name);

  constructor(
    private readonly endTurn: EndTurn,
    private readonly env: WorkerEnv,
  ) {}

  async execute(job: FailedTurnJob, err: Error): Promise<void> {
    const parsed = runTurnJobDataSchema.shape.turnId.safeParse(job.data?.turnId);
    if (!parsed.success) {
      this.logger.error(`job ${job.id} failed with unusable data: ${err.message}`);
      return;
    }
    const turnId = parsed.data;
    const known = err instanceof TurnFailedError || err instanceof TurnAttemptError ? err : null;
    const stalled = err.message === STALLED_LIMIT_REASON;
    const code: TurnErrorCode = stalled ? 'WORKER_LOST' : (known?.code ?? 'INTERNAL');
    const message = stalled
      ? 'The workers running this turn stopped responding, so it was given up. Ask again.'
      : (known?.message ?? 'The agent failed unexpectedly. Try asking again.');
    // Postgres may be what failed the turn: keep trying to store the failure for as long as a job
    // lock lasts; after that the sweep ends the turn (its job is `failed`).
    const result = await this.endTurn.execute(
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
    if (result.kind === 'finished')
      this.logger.warn(`turn ${turnId} ended in error ${code} after ${job.attemptsStarted} attempt(s)`);
    else
      this.logger.log(
        `turn ${turnId}: failed after it had already ended (${result.kind}); nothing to report`,
      );
  }
}
