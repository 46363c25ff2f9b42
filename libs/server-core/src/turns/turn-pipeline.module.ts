import {
  type DynamicModule,
  Global,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Redis } from 'ioredis';
import { Logger } from '@nestjs/common';
import {
  closeRedis,
  createRedisConnection,
  type RedisConnectionRole,
  waitUntilReady,
} from '../redis/redis-connection';
import { RedisKeys } from '../redis/redis-keys';
import { TurnCancelSignals } from './turn-cancel-signals';
import { TurnEventBus } from './turn-event-bus';
import { TurnEventSubscriber } from './turn-event-subscriber';

/** Nest token of the process's Redis command connection (an ioredis `Redis`). */
export const REDIS_CLIENT = Symbol('REDIS_CLIENT');

export interface TurnPipelineOptions {
  /** `REDIS_URL`. */
  redisUrl: string;
  /** `REDIS_PREFIX`: every key and channel lives under it. */
  prefix: string;
  /** Connection name prefix shown in `CLIENT LIST` (e.g. `api`, `worker:<id>`). */
  clientName: string;
  /** `fail-fast` on request paths (the API answers 503 at once), `patient` in the worker. */
  role: Extract<RedisConnectionRole, 'fail-fast' | 'patient'>;
  /** Auto-pipeline the command connection (`RedisConnectionOptions.autoPipelining`); default off. */
  autoPipelining?: boolean;
  /** `commandTimeout` of the command connection (`RedisConnectionOptions.commandTimeoutMs`); default none. */
  commandTimeoutMs?: number;
}

@Injectable()
class TurnPipelineShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly subscriber: TurnEventSubscriber,
    private readonly cancels: TurnCancelSignals,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.subscriber.close(), this.cancels.close()]);
    await closeRedis(this.redis);
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
      createRedisConnection(options.redisUrl, `${options.clientName}:${suffix}`, 'subscriber');
    return {
      module: TurnPipelineModule,
      providers: [
        { provide: RedisKeys, useValue: keys },
        {
          provide: REDIS_CLIENT,
          // Start-up waits (up to 5 s) for the connection so the first request does not fail;
          // when Redis is down the app still starts and reports it at /health.
          useFactory: async () => {
            const redis = createRedisConnection(options.redisUrl, options.clientName, options.role, {
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
          useFactory: (redis: Redis) => new TurnEventBus(redis, keys),
          inject: [REDIS_CLIENT],
        },
        {
          provide: TurnEventSubscriber,
          useFactory: () => new TurnEventSubscriber(subscriberFactory('events'), keys),
        },
        {
          provide: TurnCancelSignals,
          useFactory: (redis: Redis) => new TurnCancelSignals(redis, subscriberFactory('cancel'), keys),
          inject: [REDIS_CLIENT],
        },
        TurnPipelineShutdown,
      ],
      exports: [RedisKeys, REDIS_CLIENT, TurnEventBus, TurnEventSubscriber, TurnCancelSignals],
    };
  }
}
