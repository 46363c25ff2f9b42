import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { BullModule, Processor } from '@nestjs/bullmq';
import { type DynamicModule, Module, RequestMethod, type Type } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import type { ConnectionOptions } from 'bullmq';
import { DataSource } from 'typeorm';
import { CHAT_TURNS_QUEUE, IMPORTS_QUEUE, WEBHOOKS_QUEUE } from '@corpus-chat/contracts';
import { dataSourceOptions, TurnLedger } from '@corpus-chat/persistence';
import {
  jobWorkerOptions,
  MetricsModule,
  migratingDataSourceFactory,
  pinoParams,
  BULLMQ_CONNECTION,
  RedisKeys,
  TurnPipelineModule,
} from '@corpus-chat/server-core';
import { WorkerEnv } from './config/worker-env';
import { WorkerHealthController } from './health/worker-health.controller';
import { ImportProcessor } from './imports/import.processor';
import { CancelTurn } from './turns/cancel-turn';
import { EndTurn } from './turns/end-turn';
import { FailTurn } from './turns/fail-turn';
import { RecoverTurn } from './turns/recover-turn';
import { RunTurn } from './turns/run-turn';
import { RunningTurns } from './turns/running-turns';
import { WORKER_ID } from './turns/worker-id';
import { TurnProcessor } from './turns/turn.processor';
import { TurnWarmup } from './turns/turn-warmup';
import { WebhookProcessor } from './webhooks/webhook.processor';

export interface WorkerModuleOptions {
  /** Validated settings (`loadWorkerEnv()`). */
  env: WorkerEnv;
  /**
   * The module providing (and exporting) `AGENT_RUNNER`: `AgentModule.forRoot()` in production, a
   * scripted runner in tests. It may inject TypeORM's `DataSource`.
   */
  agentModule: Type<unknown> | DynamicModule;
}

/**
 * The agent-worker: consumes `chat-turns` (`WORKER_CONCURRENCY`), `imports` (`IMPORT_CONCURRENCY`)
 * and `webhooks` jobs. Any number of workers may share one Redis and Postgres.
 */
@Module({})
export class WorkerModule {
  static forRoot({ env, agentModule }: WorkerModuleOptions): DynamicModule {
    const workerId = env.WORKER_ID || `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    const keys = new RedisKeys(env.REDIS_PREFIX);
    const queues = [CHAT_TURNS_QUEUE, IMPORTS_QUEUE, WEBHOOKS_QUEUE];

    // The worker options come from settings validated at start-up, so the processor is declared here.
    @Processor(CHAT_TURNS_QUEUE, {
      concurrency: env.WORKER_CONCURRENCY,
      ...jobWorkerOptions('turn', env),
      name: workerId,
      autorun: false, // started by TurnProcessor once warm
    })
    class ConfiguredTurnProcessor extends TurnProcessor {}

    // Its own concurrency: parsing is CPU-bound, so a few imports must not starve the turns.
    @Processor(IMPORTS_QUEUE, {
      concurrency: env.IMPORT_CONCURRENCY,
      ...jobWorkerOptions('import', env),
      name: workerId,
    })
    class ConfiguredImportProcessor extends ImportProcessor {}

    // Sending is waiting on the network, so a handful at once; the job is short, its lock too.
    @Processor(WEBHOOKS_QUEUE, { concurrency: 8, name: workerId })
    class ConfiguredWebhookProcessor extends WebhookProcessor {}

    return {
      module: WorkerModule,
      imports: [
        // Health probes come every few seconds; they are not worth a log line each.
        LoggerModule.forRoot({
          ...pinoParams(env, 'agent-worker'),
          exclude: [{ path: 'health', method: RequestMethod.ALL }],
        }),
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...dataSourceOptions(env.DATABASE_URL, {
              extra: { max: env.DB_POOL_SIZE, min: Math.min(env.DB_POOL_MIN, env.DB_POOL_SIZE) },
            }),
            retryAttempts: 3,
            retryDelay: 1000,
          }),
          // Migrations (RUN_MIGRATIONS=1) run under an advisory lock: API and workers may start together.
          dataSourceFactory: migratingDataSourceFactory(env.RUN_MIGRATIONS === 1),
        }),
        BullModule.forRootAsync({
          inject: [BULLMQ_CONNECTION],
          useFactory: (connection: ConnectionOptions) => ({ connection, prefix: keys.bullPrefix }),
        }),
        // Registers the queue and, with it, @nestjs/bullmq's explorer that creates the processor's Worker.
        BullModule.registerQueue(...queues.map((name) => ({ name }))),
        TurnPipelineModule.forRoot({
          redis: env,
          prefix: env.REDIS_PREFIX,
          clientName: `worker`,
          role: 'patient',
          bullWorkers: true,
          // Hundreds of turns publish at once: their commands share writes.
          autoPipelining: true,
        }),
        MetricsModule.forRoot({ port: env.METRICS_PORT, queueNames: queues }),
        agentModule,
        TerminusModule.forRoot({ errorLogStyle: 'pretty', logger: false }),
      ],
      // Served only when the worker runs as an HTTP app (`createWorkerApp`); a context ignores it.
      controllers: [WorkerHealthController],
      providers: [
        { provide: WorkerEnv, useValue: env },
        { provide: WORKER_ID, useValue: workerId },
        { provide: TurnLedger, useFactory: (ds: DataSource) => new TurnLedger(ds), inject: [DataSource] },
        RunningTurns,
        EndTurn,
        RunTurn,
        CancelTurn,
        FailTurn,
        RecoverTurn,
        TurnWarmup,
        // WORKER_QUEUES: a processor not provided never creates its BullMQ worker.
        ...(env.WORKER_QUEUES.includes('turns') ? [ConfiguredTurnProcessor] : []),
        ...(env.WORKER_QUEUES.includes('imports') ? [ConfiguredImportProcessor] : []),
        ...(env.WORKER_QUEUES.includes('webhooks') ? [ConfiguredWebhookProcessor] : []),
      ],
      exports: [WORKER_ID],
    };
  }
}
