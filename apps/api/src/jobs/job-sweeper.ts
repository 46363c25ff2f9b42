import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Recovery } from '@corpus-chat/server-core';

/** How often each API instance looks for active turns and imports whose job is missing. */
export const SWEEP_INTERVAL_MS = 30_000;
/**
 * Rows unchanged for less than this are left alone: a POST or an upload adds the job right after
 * its commit, and a sweep must not race it (a second add would be a no-op, but no haste is needed).
 */
export const SWEEP_MIN_AGE_MS = 10_000;

/** One kind of job-backed row (turns, imports) as the sweep sees it. */
export interface SweptKind<Row> {
  name: string;
  /** Active rows unchanged for `minAgeMs` or more, oldest first. Rejects when Postgres fails. */
  stale(minAgeMs: number): Promise<Row[]>;
  id(row: Row): string;
  /** `recoverJob`'s rule for one row. */
  recover(row: Row): Promise<Recovery>;
}

/**
 * The safety net of "commit, then enqueue", for every job-backed row: every `SWEEP_INTERVAL_MS` it
 * hands each kind's stale active rows to its `recover`, which adds the job of a queued row that
 * has none and ends a row whose job is gone. The turn and import services register their kind at
 * start. Every API instance sweeps; the job id is the row id, so two sweeps of one row are harmless.
 */
@Injectable()
export class JobSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobSweeper.name);
  private readonly kinds: SweptKind<unknown>[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** Adds `kind`, once per name: a service provided by two modules (imports) registers twice. */
  register<Row>(kind: SweptKind<Row>): void {
    if (!this.kinds.some((k) => k.name === kind.name)) this.kinds.push(kind as SweptKind<unknown>);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((e: Error) => this.logger.warn(`job sweep failed: ${e.message}`));
    }, SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * One sweep over every kind's rows older than `minAgeMs`. Resolves with what was done per row id
   * (rows whose check failed, e.g. Redis down, are logged and left for the next sweep). Rejects
   * when Postgres cannot list the rows.
   */
  async sweep(minAgeMs = SWEEP_MIN_AGE_MS): Promise<Map<string, Recovery>> {
    const done = new Map<string, Recovery>();
    for (const kind of this.kinds) {
      for (const row of await kind.stale(minAgeMs)) {
        try {
          done.set(kind.id(row), await kind.recover(row));
        } catch (e) {
          this.logger.warn(`${kind.name} ${kind.id(row)}: could not check its job: ${(e as Error).message}`);
        }
      }
    }
    return done;
  }
}
