import fs from 'node:fs/promises';
import { InjectQueue } from '@nestjs/bullmq';
import {
  ConflictException,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  ServiceUnavailableException,
} from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { RedisClient } from '@corpus-chat/server-core';
import { DataSource } from 'typeorm';
import {
  type ImportJobView,
  ImportJobNames,
  IMPORTS_QUEUE,
  type RunImportJobData,
} from '@corpus-chat/contracts';
import {
  cancelImportJob,
  createImportJobs,
  failImportJob,
  findImportJob,
  IMPORT_JOB_LOST_REASON,
  ImportQuotaExceeded,
  type ImportQuota,
  type ImportJobRecord,
  importJobView,
  listImportJobs,
  staleImportJobs,
} from '@corpus-chat/ingest';
import {
  inSpan,
  jobAddOptions,
  recoverJob,
  type Recovery,
  REDIS_CLIENT,
  RedisKeys,
  traceCarrier,
} from '@corpus-chat/server-core';
import { ApiEnv } from '../config/api-env';
import { JobSweeper } from '../jobs/job-sweeper';
import { describeBytes } from '../errors/client-error.filter';

/** An uploaded file as multer's disk storage hands it over. */
export interface UploadedReportFile {
  originalname: string;
  /** Where multer stored it (inside `CorpusImportOptions.uploadDir`). */
  path: string;
  /** Bytes. */
  size: number;
}

/**
 * Multer decodes multipart file names as latin1; browsers send UTF-8. Re-decode when the bytes
 * form valid UTF-8 (plain ASCII names are unchanged either way).
 */
export function utf8Name(name: string): string {
  const bytes = Buffer.from(name, 'latin1');
  const decoded = bytes.toString('utf8');
  return Buffer.from(decoded, 'utf8').equals(bytes) ? decoded : name;
}

/** 429 for uploads past the operator's import quota, saying what is waiting and what to do. */
export function quotaRefusal({ backlog, adding, quota }: ImportQuotaExceeded): HttpException {
  const fix =
    'Wait for some to finish, or cancel ones you no longer need (Reports → Imports), then send these files again.';
  const message =
    backlog.imports + adding.imports > quota.imports
      ? `You have ${backlog.imports} imports waiting or running, and these ${adding.imports} would pass your limit of ${quota.imports}; nothing was imported. ${fix}`
      : `Your queued uploads hold ${describeBytes(backlog.bytes)}, and these ${describeBytes(adding.bytes)} would pass your limit of ${describeBytes(quota.bytes)}; nothing was imported. ${fix}`;
  return new HttpException(
    { statusCode: 429, error: 'IMPORT_QUOTA', message, queued: backlog.imports, queuedBytes: backlog.bytes },
    HttpStatus.TOO_MANY_REQUESTS,
  );
}

/** The API's side of imports, per operator: record the upload, commit, then enqueue. */
@Injectable()
export class ImportsService {
  private readonly logger = new Logger(ImportsService.name);

  constructor(
    private readonly dataSource: DataSource,
    @InjectQueue(IMPORTS_QUEUE)
    private readonly queue: Queue<RunImportJobData, string, typeof ImportJobNames.runImport>,
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly env: ApiEnv,
    sweeper: JobSweeper,
  ) {
    sweeper.register({
      name: 'import',
      stale: (minAgeMs) => staleImportJobs(this.dataSource.manager, minAgeMs),
      id: (job) => job.id,
      recover: (job) => this.recover(job),
    });
  }

  /**
   * Queues one import per file, in order, removing local files once stored. @throws 429 over
   * `quota`, 503 when Redis cannot take the jobs (the imports are removed again).
   */
  queueImports(
    files: UploadedReportFile[],
    operatorId: string,
    quota: ImportQuota,
  ): Promise<ImportJobView[]> {
    return inSpan('import.queue', { 'corpus_chat.files': files.length }, async () => {
      let jobs: ImportJobRecord[];
      try {
        jobs = await createImportJobs(
          this.dataSource,
          operatorId,
          files.map((f) => ({ filename: utf8Name(f.originalname), uploadPath: f.path, sizeBytes: f.size })),
          quota,
        );
      } catch (e) {
        throw e instanceof ImportQuotaExceeded ? quotaRefusal(e) : e;
      } finally {
        // The bytes are in Postgres now (or nothing was recorded): the local copy is done with.
        await Promise.all(files.map((f) => fs.rm(f.path, { force: true })));
      }
      return (await this.enqueue(jobs, operatorId)).map(importJobView);
    });
  }

  /** Adds the jobs of committed imports; 503 when Redis refuses, removing the imports again. */
  async enqueue(jobs: ImportJobRecord[], operatorId: string): Promise<ImportJobRecord[]> {
    try {
      await this.queue.addBulk(jobs.map((job) => importJob(job.id, this.env.JOB_ATTEMPTS)));
    } catch (e) {
      this.logger.warn(`import jobs not queued: ${(e as Error).message}`);
      await this.dataSource.query(`DELETE FROM import_jobs WHERE id = ANY($1::uuid[])`, [
        jobs.map((j) => j.id),
      ]);
      throw new ServiceUnavailableException(
        'The import queue (Redis) is unavailable; nothing was imported. Try again shortly.',
      );
    }
    for (const job of jobs)
      this.logger.log({ operatorId, importId: job.id, sizeBytes: job.sizeBytes }, 'import queued');
    return jobs;
  }

  /**
   * The sweep's rule (`recoverJob`) for a queued or parsing import: a queued import without a job
   * gets it again; one whose job is gone or ended without ending it ends `failed`. A worker that
   * died mid-parse is the workers' own stalled check (`ImportProcessor.onFailed`).
   */
  async recover(job: ImportJobRecord): Promise<Recovery> {
    const state = await this.queue.getJobState(job.id);
    return recoverJob(
      state,
      { queued: job.status === 'queued' },
      {
        requeue: async () => {
          const { name, data, opts } = importJob(job.id, this.env.JOB_ATTEMPTS);
          await this.queue.add(name, data, opts);
          this.logger.warn({ importId: job.id }, 'import was queued without a job; job added again');
        },
        end: async () => {
          const ended = await failImportJob(this.dataSource, job.id, IMPORT_JOB_LOST_REASON);
          if (!ended) return false;
          this.logger.warn({ importId: job.id, jobState: state }, 'import had no live job; ended failed');
          await this.redis
            .publish(
              this.keys.importEvents,
              JSON.stringify({ operatorId: ended.operatorId, job: importJobView(ended) }),
            )
            .catch((e: Error) => this.logger.warn(`import ${job.id}: failure not broadcast: ${e.message}`));
          return true;
        },
      },
    );
  }

  async list(operatorId: string): Promise<ImportJobView[]> {
    return (await listImportJobs(this.dataSource.manager, operatorId)).map(importJobView);
  }

  /** @throws NotFoundException for an unknown id or another operator's import. */
  async get(operatorId: string, id: string): Promise<ImportJobView> {
    const job = await findImportJob(this.dataSource.manager, operatorId, id);
    if (!job) throw new NotFoundException(`No import of yours has id ${id}.`);
    return importJobView(job);
  }

  /**
   * Cancels a queued or parsing import and tells the operator's sockets; one being stored answers
   * at once (still `parsing`) and its worker rolls back.
   * @throws NotFoundException (unknown), ConflictException (it already ended).
   */
  async cancel(operatorId: string, id: string): Promise<ImportJobView> {
    const result = await cancelImportJob(this.dataSource, operatorId, id);
    if (result.status === 'not_found') throw new NotFoundException(`No import of yours has id ${id}.`);
    if (result.status === 'finished') {
      throw new ConflictException(
        `Import ${id} already ended (${result.job.status}); archive its report on the Reports page instead.`,
      );
    }
    const view = importJobView(result.job);
    if (result.status === 'cancelling') {
      // Its worker is storing it: it stops at its next statement and publishes the cancelled import.
      this.logger.log({ operatorId, importId: id }, 'import cancel requested while it is stored');
      return view;
    }
    this.logger.log({ operatorId, importId: id }, 'import cancelled');
    await this.redis
      .publish(this.keys.importEvents, JSON.stringify({ operatorId, job: view }))
      .catch((e: Error) => this.logger.warn(`import ${id}: cancel not broadcast: ${e.message}`));
    return view;
  }
}

/** The job of import `id`. */
function importJob(id: string, attempts: number) {
  return {
    name: ImportJobNames.runImport,
    data: { importId: id, ...traceCarrier() },
    opts: jobAddOptions(id, attempts),
  };
}
