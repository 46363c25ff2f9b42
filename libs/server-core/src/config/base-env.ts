import { z } from 'zod';
import { envClass, envInt } from './validate-env';

/** Settings both the API and the agent-worker read. Each has a default suited to development. */
export const serverEnvSchema = z.looseObject({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/.+\/[^/?]+/, { error: 'must look like postgres://user@host:5432/dbname' })
    .default('postgres://postgres@127.0.0.1:5432/corpus_chat')
    .describe('Postgres connection URL.'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, { error: 'must look like redis://host:6379' })
    .default('redis://127.0.0.1:6379')
    .describe('Redis connection URL (BullMQ queue, turn events, cancel signals, shared rate limits).'),
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(/^([^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*)?$/, {
      error: 'must be comma-separated host:port seed nodes, e.g. 10.0.0.1:6379,10.0.0.2:6379 (or empty)',
    })
    .default('')
    .describe(
      'Seed nodes (`host:port,host:port`) of a Redis Cluster; empty: one Redis at `REDIS_URL`. When ' +
        'set, every connection is a cluster client and `REDIS_URL` gives only the user, password and ' +
        'TLS (`rediss:`) of the nodes. Every key of the deployment carries the hash tag ' +
        '`{REDIS_PREFIX}`, so all of them live in one slot: the cluster gives availability, not ' +
        'sharding.',
    ),
  REDIS_PREFIX: z
    .string()
    .regex(/^(?!.*:$)[a-zA-Z0-9:_-]{1,64}$/, {
      error:
        'must be 1–64 letters, digits, ":", "_" or "-", not ending with ":" (braces and the ' +
        'separator are added: "cc" gives keys "{cc}:…")',
    })
    .default('cc')
    .describe(
      'Prefix of every Redis key and channel of this deployment (lets deployments and test runs ' +
        'share a Redis), as a hash tag: `cc` gives keys `{cc}:…`, all in one Redis Cluster slot.',
    ),
  NODE_ENV: z
    .enum(['development', 'production', 'test'])
    .default('development')
    .describe('`development` or `production` (production requires secrets to be set explicitly).'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino level.'),
  DB_POOL_SIZE: envInt(10, 1, 1000).describe(
    "Postgres connections of this process's pool. A worker with a high `WORKER_CONCURRENCY` holds many short transactions at once and waits on a small pool (docs/benchmarks.md, scenario 3); keep the sum over all processes below the server's `max_connections`.",
  ),
  DB_POOL_MIN: envInt(2, 0, 1000).describe(
    'Postgres connections of the pool opened and warmed at start and kept open when idle (at most ' +
      '`DB_POOL_SIZE`), so the first requests after a start or a quiet spell do not pay for new ' +
      'connections.',
  ),
  METRICS_PORT: envInt(-1, -1, 65535).describe(
    "Port of this process's Prometheus `GET /metrics` (0: any free port; -1: off). A port of its own, so metrics never pass through the public API.",
  ),
  RUN_MIGRATIONS: envInt(1, 0, 1).describe(
    'Run pending migrations at start (set 0 to skip, e.g. when a release job runs them).',
  ),
});

export class ServerEnv extends envClass(serverEnvSchema) {}
