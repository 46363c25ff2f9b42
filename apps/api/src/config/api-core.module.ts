import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { dataSourceOptions } from '@corpus-chat/persistence';
import {
  migratingDataSourceFactory,
  REDIS_CLIENT,
  type RedisClient,
  RedisKeys,
  TurnPipelineModule,
} from '@corpus-chat/server-core';
import { JobSweeper } from '../jobs/job-sweeper';
import { ApiEnv } from './api-env';
import { apiPinoParams } from './api-logging';

/**
 * The API's infrastructure, global: validated settings (`ApiEnv` by class, and `ConfigService`),
 * pino logging (`apiPinoParams`), TypeORM on `DATABASE_URL` (migrations at start unless `RUN_MIGRATIONS=0`), the
 * BullMQ connection (queues under `{<REDIS_PREFIX>}:bull`), and the turn pipeline's Redis side
 * (event bus, subscriber, cancel signals) on a fail-fast connection so requests answer 503 at
 * once while Redis is down; and the `JobSweeper` the turn and import services register with.
 */
@Module({})
export class ApiCoreModule {
  static forRoot(env: ApiEnv): DynamicModule {
    const keys = new RedisKeys(env.REDIS_PREFIX);
    return {
      module: ApiCoreModule,
      global: true,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          ignoreEnvFile: true,
          skipProcessEnv: true,
          load: [() => ({ ...env })],
        }),
        LoggerModule.forRoot(apiPinoParams(env)),
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...dataSourceOptions(env.DATABASE_URL, {
              extra: {
                max: env.DB_POOL_SIZE,
                min: Math.min(env.DB_POOL_MIN, env.DB_POOL_SIZE),
                connectionTimeoutMillis: env.DB_ACQUIRE_TIMEOUT_MS,
              },
            }),
            retryAttempts: 3,
            retryDelay: 1000,
          }),
          // Migrations (RUN_MIGRATIONS=1) run under an advisory lock: API and workers may start together.
          dataSourceFactory: migratingDataSourceFactory(env.RUN_MIGRATIONS === 1),
        }),
        BullModule.forRootAsync({
          // The queue shares the pipeline's fail-fast connection: adding a job while Redis is down
          // fails at once (503), and closing during an outage drops the socket instead of waiting.
          inject: [REDIS_CLIENT],
          useFactory: (redis: RedisClient) => ({ connection: redis, prefix: keys.bullPrefix }),
        }),
        TurnPipelineModule.forRoot({
          redis: env,
          prefix: env.REDIS_PREFIX,
          clientName: 'api',
          role: 'fail-fast',
          // A hung Redis fails each command after this, so no request waits on it longer.
          commandTimeoutMs: env.REDIS_REQUEST_TIMEOUT_MS,
        }),
      ],
      providers: [{ provide: ApiEnv, useValue: env }, JobSweeper],
      exports: [ApiEnv, JobSweeper],
    };
  }
}
