import { OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { runImportJobDataSchema, type RunImportJobData } from '@corpus-chat/contracts';
import {
  failImportJob,
  importFailure,
  type FindingExtractor,
  IMPORT_WORKER_LOST_REASON,
  type ImportJobRecord,
  importJobView,
  runImportJob,
} from '@corpus-chat/ingest';
import { readModelSettings } from '@corpus-chat/persistence';
import {
  inSpan,
  metrics,
  REDIS_CLIENT,
  type RedisClient,
  RedisKeys,
  STALLED_LIMIT_REASON,
  withTraceParent,
} from '@corpus-chat/server-core';
import { AGENT_CONFIG, type AgentConfig, agentConfig } from '../agent/agent.config';
import { WorkerEnv } from '../config/worker-env';
import { parseJobData } from '../job-data';
import { modelFindingExtractor } from './model-finding-extractor';

/**
 * BullMQ glue of the `imports` queue: runs `runImportJob` per job and publishes status changes on
 * `RedisKeys.importEvents`. Throwing attempts are retried; `onFailed` ends the import after the last
 * one, and after a worker died mid-parse (the stalled check fails its job). PDFs are read by the
 * model chunk by chunk, or stored for manual review with the built-in back end.
 *
 * `WorkerModule.forRoot` adds `@Processor` from the validated settings.
 */
@Injectable()
export class ImportProcessor extends WorkerHost {
  private readonly logger = new Logger(ImportProcessor.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    // Absent when a test runs the worker with a scripted agent: the defaults then apply.
    @Optional() @Inject(AGENT_CONFIG) private readonly agent: AgentConfig = agentConfig(),
    @Optional() @Inject(WorkerEnv) private readonly env?: WorkerEnv,
  ) {
    super();
  }

  process(job: Job<RunImportJobData>): Promise<string> {
    const { importId, traceparent } = parseJobData(runImportJobDataSchema, job.data);
    return withTraceParent(traceparent, () =>
      inSpan('import.run', { 'corpus_chat.import_id': importId }, () => this.run(importId)),
    );
  }

  private async run(importId: string): Promise<string> {
    const end = metrics.importDuration.startTimer();
    const ended = await runImportJob(this.dataSource, importId, {
      // The API enforced IMPORT_MAX_BYTES while the upload streamed to disk.
      maxBytes: Number.MAX_SAFE_INTEGER,
      onParsing: (started) => this.publish(started),
      onProgress: (progress) => this.publish(progress),
      findingExtractor: () => this.extractor(importId),
      // Storing is paced only to leave room for chat turns this process runs too (WORKER_QUEUES).
      paced: this.env?.WORKER_QUEUES.includes('turns') ?? true,
    });
    if (!ended) {
      this.logger.log({ importId }, 'import already ended or cancelled; nothing to do');
      return 'skipped';
    }
    end({ status: ended.status });
    metrics.importBytes.observe(ended.sizeBytes);
    this.logger.log(
      {
        importId,
        operatorId: ended.operatorId,
        status: ended.status,
        reportId: ended.outcome?.ok ? ended.outcome.reportId : undefined,
      },
      'import ended',
    );
    await this.publish(ended);
    return ended.status;
  }

  @OnWorkerEvent('failed')
  async onFailed(job: Job<RunImportJobData> | undefined, err: Error): Promise<void> {
    // Data that never named an import (refused by `process`) has no import to end.
    if (!job || !runImportJobDataSchema.safeParse(job.data).success) return;
    if (!job.finishedOn) {
      this.logger.warn(
        `import ${job.data.importId}: attempt ${job.attemptsStarted} failed (${err.message}); retrying`,
      );
      return;
    }
    try {
      // The driver's or Node's text stays in the log, under the error id the reason quotes.
      const reason =
        err.message === STALLED_LIMIT_REASON
          ? IMPORT_WORKER_LOST_REASON
          : importFailure(`import ${job.data.importId}`, err).error;
      const ended = await failImportJob(this.dataSource, job.data.importId, reason);
      if (ended) await this.publish(ended);
    } catch (e) {
      this.logger.error(`import ${job.data.importId}: could not record its failure: ${(e as Error).message}`);
    }
  }

  /** The configured model's extractor, read per import so a settings change applies to the next one. */
  private async extractor(importId: string): Promise<FindingExtractor | null> {
    const settings = await readModelSettings(this.dataSource);
    const extractor = await modelFindingExtractor(settings, this.agent, this.logger);
    this.logger.log(
      { importId, model: extractor?.model ?? null },
      extractor
        ? 'PDF: extracting findings with the model'
        : 'PDF: no model configured; stored for manual review',
    );
    return extractor;
  }

  private async publish(job: ImportJobRecord): Promise<void> {
    await this.redis.publish(
      this.keys.importEvents,
      JSON.stringify({ operatorId: job.operatorId, job: importJobView(job) }),
    );
  }
}
