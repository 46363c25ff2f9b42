import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, Min } from 'class-validator';

/** Settings both the API and the agent-worker read. Each has a default suited to development. */
export class ServerEnv {
  /** Postgres connection URL. */
  @Matches(/^postgres(ql)?:\/\/.+\/[^/?]+/, {
    message: 'DATABASE_URL must look like postgres://user@host:5432/dbname',
  })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/corpus_chat';

  /** Redis connection URL (BullMQ queue, turn events, cancel signals, shared rate limits). */
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must look like redis://host:6379' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * Prefix of every Redis key and channel of this deployment (lets deployments and test runs share
   * a Redis); the ":" after it is added, so it must not end with one.
   */
  @IsString()
  @Matches(/^(?!.*:$)[a-zA-Z0-9:_-]{1,64}$/, {
    message:
      'REDIS_PREFIX must be 1–64 letters, digits, ":", "_" or "-", not ending with ":" (the separator is added: "cc" gives keys "cc:…")',
  })
  REDIS_PREFIX = 'cc';

  /** `development` or `production` (production requires secrets to be set explicitly). */
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  /** pino level. */
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /**
   * Postgres connections of this process's pool. A worker with a high `WORKER_CONCURRENCY` holds
   * many short transactions at once and waits on a small pool (docs/benchmarks.md, scenario 3);
   * keep the sum over all processes below the server's `max_connections`.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  DB_POOL_SIZE = 10;

  /**
   * Port of this process's Prometheus `GET /metrics` (0: any free port; -1: off). A port of its
   * own, so metrics never pass through the public API.
   */
  @Type(() => Number)
  @IsInt()
  @Min(-1)
  @Max(65535)
  METRICS_PORT = -1;

  /** Run pending migrations at start (set 0 to skip, e.g. when a release job runs them). */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1)
  RUN_MIGRATIONS = 1;
}
