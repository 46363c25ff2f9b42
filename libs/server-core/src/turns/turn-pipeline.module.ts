import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import { Cluster } from 'ioredis';
import {
  closeRedis,
  clusterNodes,
  createRedisConnection,
  type RedisClient,
  type RedisConnectionRole,
  redisOptionsFromUrl,
  type RedisTarget,
  redisUrl,
  waitUntilReady,
} from '../redis/redis-connection';
import { RedisKeys } from '../redis/redis-keys';
import { TurnCancelSignals } from './turn-cancel-signals';
import { TurnEventBus } from './turn-event-bus';
import { TurnEventSubscriber } from './turn-event-subscriber';

/** Nest token of the process's Redis command connection (an ioredis `Redis` or `Cluster`). */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

/**
 * Nest token of BullMQ's `connection` for a process running BullMQ workers, which need
 * `maxRetriesPerRequest: null`: options from which BullMQ makes (and closes) its own connections,
 * or on Redis Cluster a `Cluster` (BullMQ takes no cluster options), closed here at shutdown.
 */
export const BULLMQ_CONNECTION = Symbol('BULLMQ_CONNECTION');

export interface TurnPipelineOptions {
  /** `REDIS_URL` (and `REDIS_CLUSTER_NODES`). */
  redis: RedisTarget;
  /** `REDIS_PREFIX`: every key and channel lives under it. */
  prefix: string;
  /** Connection name prefix shown in `CLIENT LIST` (e.g. `api`, `worker:<id>`). */
  clientName: string;
  /** `fail-fast` on request paths (the API answers 503 at once), `patient` in the worker. */
  role: Extract<RedisConnectionRole, 'fail-fast' | 'patient'>;
  /** Auto-pipeline the command connection (`RedisConnectionOptions.autoPipelining`); default off. */
  autoPipelining?: boolean;
  /** Provide `BULLMQ_CONNECTION` (a process that runs BullMQ workers); default off. */
  bullWorkers?: boolean;
  /** `commandTimeout` of the command connection (`RedisConnectionOptions.commandTimeoutMs`); default none. */
  commandTimeoutMs?: number;
}

function bullConnection(options: TurnPipelineOptions): ConnectionOptions {
  const name = `${options.clientName}-bullmq`;
  // 'subscriber': queued while disconnected, retried forever (maxRetriesPerRequest: null).
  return clusterNodes(options.redis).length
    ? createRedisConnection(options.redis, name, 'subscriber')
    : { ...redisOptionsFromUrl(redisUrl(options.redis)), connectionName: name };
}

@Injectable()
class TurnPipelineShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    @Optional() @Inject(BULLMQ_CONNECTION) private readonly bull: ConnectionOptions | undefined,
    private readonly subscriber: TurnEventSubscriber,
    private readonly cancels: TurnCancelSignals,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.subscriber.close(), this.cancels.close()]);
    await closeRedis(this.redis);
    if (this.bull instanceof Cluster) await closeRedis(this.bull);
  }
}

/**
 * Global module giving a process the turn pipeline's Redis side: `REDIS_CLIENT`, `RedisKeys`,
 * `TurnEventBus`, `TurnEventSubscriber` and `TurnCancelSignals`, all closed at shutdown.
 * Subscriber connections are opened on first use only.
 */
@Global()
@Module({})
export class TurnPipelineModule {
  static forRoot(options: TurnPipelineOptions): DynamicModule {
    const keys = new RedisKeys(options.prefix);
    const subscriberFactory = (suffix: string) => () =>
      createRedisConnection(options.redis, `${options.clientName}:${suffix}`, 'subscriber');
    return {
      module: TurnPipelineModule,
      providers: [
        { provide: RedisKeys, useValue: keys },
        {
          provide: REDIS_CLIENT,
          // Start-up waits (up to 5 s) for the connection so the first request does not fail;
          // when Redis is down the app still starts and reports it at /health.
          useFactory: async () => {
            const redis = createRedisConnection(options.redis, options.clientName, options.role, {
              autoPipelining: options.autoPipelining,
              commandTimeoutMs: options.commandTimeoutMs,
            });
            if (!(await waitUntilReady(redis, 5000))) {
              new Logger(TurnPipelineModule.name).warn(
                `Redis not reachable at start-up (${options.clientName}); retrying in the background`,
              );
            }
            return redis;
          },
        },
        {
          provide: TurnEventBus,
          useFactory: (redis: RedisClient) => new TurnEventBus(redis, keys),
          inject: [REDIS_CLIENT],
        },
        {
          provide: TurnEventSubscriber,
          useFactory: () => new TurnEventSubscriber(subscriberFactory('events'), keys),
        },
        {
          provide: TurnCancelSignals,
          useFactory: (redis: RedisClient) => new TurnCancelSignals(redis, subscriberFactory('cancel'), keys),
          inject: [REDIS_CLIENT],
        },
        ...(options.bullWorkers
          ? [{ provide: BULLMQ_CONNECTION, useFactory: () => bullConnection(options) }]
          : []),
        TurnPipelineShutdown,
      ],
      exports: [
        RedisKeys,
        REDIS_CLIENT,
        ...(options.bullWorkers ? [BULLMQ_CONNECTION] : []),
        TurnEventBus,
        TurnEventSubscriber,
        TurnCancelSignals,
      ],
    };
  }
}
