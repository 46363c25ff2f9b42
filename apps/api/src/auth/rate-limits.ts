import { type ExecutionContext, Inject, Injectable, Logger } from '@nestjs/common';
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
import type { Redis } from 'ioredis';
import { redisHang, type RedisClient } from '@corpus-chat/server-core';
import { AUTH_ENV, type AuthEnv } from './auth.env';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;
import type { AuthenticatedRequest } from './auth.guard';

/** Milliseconds the rate limits stay open after Redis failed, before Redis is asked again. */
export const FAIL_OPEN_RECHECK_MS = 5000;

/**
 * `@nest-lab/throttler-storage-redis`, but failing open during a Redis outage (routes needing
 * Redis answer 503 themselves); after a failure Redis is skipped for `FAIL_OPEN_RECHECK_MS`.
 */
export class FailOpenRedisThrottlerStorage extends ThrottlerStorageRedisService {
  private readonly logger = new Logger('RateLimits');

  /**
   * `url` names the Redis of `redis` for `redisHang` (a timeout here makes the route's own command fail at
   * once).
   */
  constructor(
    redis: RedisClient,
    private readonly url: string,
  ) {
    // The storage takes a `Redis` or a `Cluster` (one constructor overload each).
    super(redis as Redis);
  }

  private lastWarned = 0;
  /** Until then Redis is not asked: it just failed or did not answer (`REDIS_REQUEST_TIMEOUT_MS`). */
  private skipUntil = 0;

  override async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const open = {
      totalHits: 0,
      timeToExpire: Math.ceil(ttl / 1000),
      isBlocked: false,
      timeToBlockExpire: 0,
    };
    // A hung Redis costs one request the command timeout, not every limit of every request.
    if (Date.now() < this.skipUntil || redisHang.isHung(this.url)) return open;
    try {
      return await redisHang.run(this.url, 'rate limit', () =>
        super.increment(key, ttl, limit, blockDuration, throttlerName),
      );
    } catch (e) {
      this.skipUntil = Date.now() + FAIL_OPEN_RECHECK_MS;
      if (Date.now() - this.lastWarned > 10_000) {
        this.lastWarned = Date.now();
        this.logger.warn(`rate limits not enforced: Redis unavailable (${(e as Error).message})`);
      }
      return open;
    }
  }
}

/** Throttler settings: `REQUESTS_PER_MINUTE` per operator and route, in Redis (messages: `MessageBudget`). */
export function throttlerOptions(env: AuthEnv, redis: RedisClient): ThrottlerModuleOptions {
  return {
    storage: new FailOpenRedisThrottlerStorage(redis, env.REDIS_URL),
    throttlers: [{ name: 'default', ttl: 60_000, limit: env.REQUESTS_PER_MINUTE }],
    errorMessage: (_ctx: ExecutionContext, detail: ThrottlerLimitDetail) =>
      `Too many requests (at most ${detail.limit} a minute). Try again in ${Math.max(1, Math.ceil(detail.timeToBlockExpire))} s.`,
  };
}

/**
 * The global `ThrottlerGuard`, after `AuthGuard`: counts per operator (per IP on public routes);
 * Socket.IO handlers are not throttled here.
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
