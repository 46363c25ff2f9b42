import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { TurnLedger } from '@corpus-chat/corpus-queries';
import { type Recovery, TurnDispatcher } from './turn-dispatcher';

/** How often each API instance looks for active turns whose job is missing. */
export const TURN_SWEEP_INTERVAL_MS = 30_000;
/**
 * Turns younger than this are left alone: a POST adds the job right after its commit, and a
 * sweep must not race it (a second add would be a no-op anyway, but a lost turn needs no haste).
 */
export const TURN_SWEEP_MIN_AGE_MS = 10_000;

/**
 * The safety net of "commit, then enqueue": periodically hands turns unchanged for
 * `TURN_SWEEP_MIN_AGE_MS` to `TurnDispatcher.recover`. Every instance sweeps; job ids dedupe.
 */
@Injectable()
export class TurnSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TurnSweeper.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ledger: TurnLedger,
    private readonly dispatcher: TurnDispatcher,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((e: Error) => this.logger.warn(`turn sweep failed: ${e.message}`));
    }, TURN_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One sweep; failed recoveries are logged and left for the next. Rejects when Postgres fails. */
  async sweep(minAgeMs = TURN_SWEEP_MIN_AGE_MS): Promise<Map<string, Recovery>> {
    const done = new Map<string, Recovery>();
    for (const turn of await this.ledger.staleActive(minAgeMs)) {
      try {
        done.set(turn.turnId, await this.dispatcher.recover(turn));
      } catch (e) {
        this.logger.warn(`turn ${turn.turnId}: could not check its job: ${(e as Error).message}`);
      }
    }
    return done;
  }
}
