import { type ExecutionContext, Inject, Injectable, Logger, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type Redis from 'ioredis';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import type { AuthenticatedRequest } from './auth.guard';

const MESSAGE_RATE_LIMIT_KEY = 'limits:messages';

/** Names of the throttlers (`@SkipThrottle({ default: true })` skips the general one on a route). */
export const Throttlers = { default: 'default', messages: 'messages' } as const;

/**
 * Counts the route against the operator's `MESSAGES_PER_MINUTE` (put it on the route that posts
 * a chat message). Over the limit the request answers 429 with `Retry-After-messages`.
 */
export const MessageRateLimit = (): MethodDecorator => SetMetadata(MESSAGE_RATE_LIMIT_KEY, true);

/**
 * The Redis storage of `@nest-lab/throttler-storage-redis`, but a Redis outage lets requests
 * through (logged) instead of failing every route: reads that only need Postgres keep working,
 * and routes that need Redis answer 503 themselves.
 */
export class FailOpenRedisThrottlerStorage extends ThrottlerStorageRedisService {
  private readonly logger = new Logger('RateLimits');
  private lastWarned = 0;

  override async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    try {
      return await super.increment(key, ttl, limit, blockDuration, throttlerName);
    } catch (e) {
      if (Date.now() - this.lastWarned > 10_000) {
        this.lastWarned = Date.now();
        this.logger.warn(`rate limits not enforced: Redis unavailable (${(e as Error).message})`);
      }
      return { totalHits: 0, timeToExpire: Math.ceil(ttl / 1000), isBlocked: false, timeToBlockExpire: 0 };
    }
  }
}

const isMessageRoute = (ctx: ExecutionContext): boolean =>
  Reflect.getMetadata(MESSAGE_RATE_LIMIT_KEY, ctx.getHandler()) === true;

/**
 * Throttler settings: a general limit per operator and route (`REQUESTS_PER_MINUTE`), and
 * `MESSAGES_PER_MINUTE` on `@MessageRateLimit()` routes, counted in Redis (shared by all API
 * instances) on the auth layer's connection. A message route is counted once, against the lower
 * of the two limits (with the wording of that limit's 429).
 */
export function throttlerOptions(env: AuthEnv, redis: Redis): ThrottlerModuleOptions {
  // Both counters of a message route would count the same requests over the same minute, so only
  // the stricter one is kept (one Redis round trip instead of two): the messages counter when its
  // limit is lower, else the general one (which also answered first before, on a tie).
  const messagesCounterRules = env.MESSAGES_PER_MINUTE < env.REQUESTS_PER_MINUTE;
  return {
    storage: new FailOpenRedisThrottlerStorage(redis),
    throttlers: [
      {
        name: Throttlers.default,
        ttl: 60_000,
        limit: env.REQUESTS_PER_MINUTE,
        skipIf: (ctx: ExecutionContext) => messagesCounterRules && isMessageRoute(ctx),
      },
      {
        name: Throttlers.messages,
        ttl: 60_000,
        limit: env.MESSAGES_PER_MINUTE,
        skipIf: (ctx: ExecutionContext) => !messagesCounterRules || !isMessageRoute(ctx),
      },
    ],
    errorMessage: (_ctx: ExecutionContext, detail: ThrottlerLimitDetail) => {
      const seconds = Math.max(1, Math.ceil(detail.timeToBlockExpire));
      return detail.key.includes(`:${Throttlers.messages}:`)
        ? `You are sending messages too fast (at most ${detail.limit} a minute). Try again in ${seconds} s.`
        : `Too many requests (at most ${detail.limit} a minute). Try again in ${seconds} s.`;
    },
  };
}

/**
 * The global `ThrottlerGuard`, registered by `AuthModule` right after `AuthGuard` so it counts per
 * signed-in operator (`request.operator.id`), falling back to the client IP on public routes. Keys
 * live under `${REDIS_PREFIX}:auth:throttle:`; Socket.IO handlers are not throttled here.
 */
@Injectable()
export class OperatorThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
  ) {
    super(options, storage, reflector);
  }

  protected override async shouldSkip(ctx: ExecutionContext): Promise<boolean> {
    return ctx.getType() !== 'http';
  }

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    const operator = (req as unknown as AuthenticatedRequest).operator;
    return operator ? `op:${operator.id}` : `ip:${String(req['ip'] ?? 'unknown')}`;
  }

  protected override generateKey(ctx: ExecutionContext, tracker: string, name: string): string {
    return `${this.env.REDIS_PREFIX}:auth:throttle:${name}:${ctx.getClass().name}.${ctx.getHandler().name}:${tracker}`;
  }
}
