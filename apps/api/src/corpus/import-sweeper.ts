import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { staleImportJobs } from '@corpus-chat/corpus-queries';
import { ImportsService } from './imports.service';

/** How often each API instance looks for imports whose job is missing. */
export const IMPORT_SWEEP_INTERVAL_MS = 30_000;
/** Imports unchanged for less than this are left alone: the upload adds the job right after its commit. */
export const IMPORT_SWEEP_MIN_AGE_MS = 10_000;

/**
 * The imports' safety net of "commit, then enqueue": periodically hands imports unchanged for
 * `IMPORT_SWEEP_MIN_AGE_MS` to `ImportsService.recover`. Every instance sweeps; job ids dedupe.
 */
@Injectable()
export class ImportSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ImportSweeper.name);
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly imports: ImportsService,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.sweep().catch((e: Error) => this.logger.warn(`import sweep failed: ${e.message}`));
    }, IMPORT_SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /**
   * One sweep over stale imports. Resolves with what was done per import id (imports whose check
   * failed, e.g. Redis down, are logged and left for the next sweep). Rejects when Postgres fails.
   */
  async sweep(minAgeMs = IMPORT_SWEEP_MIN_AGE_MS): Promise<Map<string, 'alive' | 'requeued' | 'ended'>> {
    const done = new Map<string, 'alive' | 'requeued' | 'ended'>();
    for (const job of await staleImportJobs(this.dataSource.manager, minAgeMs)) {
      try {
        done.set(job.id, await this.imports.recover(job));
      } catch (e) {
        this.logger.warn(`import ${job.id}: could not check its job: ${(e as Error).message}`);
      }
    }
    return done;
  }
}
