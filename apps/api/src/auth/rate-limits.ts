import {
  type CallHandler,
  createParamDecorator,
  type ExecutionContext,
  Inject,
  Injectable,
  Logger,
  type NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type Redis from 'ioredis';
import { catchError, from, mergeMap, type Observable } from 'rxjs';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import type { AuthenticatedRequest } from './auth.guard';

const MESSAGE_RATE_LIMIT_KEY = 'limits:messages';

/** Names of the throttlers (`@SkipThrottle({ default: true })` skips the general one on a route). */
export const Throttlers = { default: 'default', messages: 'messages' } as const;

const DEFERRED_VERDICT = Symbol('rateLimitVerdict');

/** A request whose limit check runs alongside its handler (`@MessageRateLimit({ deferred: true })`). */
type DeferredRequest = { [DEFERRED_VERDICT]?: Promise<void> };

/**
 * Counts the route against the operator's `MESSAGES_PER_MINUTE` (put it on the route that posts
 * a chat message). Over the limit the request answers 429 with `Retry-After-messages`.
 *
 * `deferred: true` saves the Redis round trip of the count on the request's path: the guard starts
 * the count and lets the request through at once; the handler takes the verdict with
 * `@RateLimitVerdict()` and must await it before any side effect (it rejects with the 429).
 * `RateLimitVerdictInterceptor` answers 429 anyway when the handler or a pipe did not get that far,
 * so the answer is the same as when the guard waited.
 */
export const MessageRateLimit = (options: { deferred?: boolean } = {}): MethodDecorator =>
  SetMetadata(MESSAGE_RATE_LIMIT_KEY, options.deferred ? 'deferred' : true);

const isDeferred = (ctx: ExecutionContext): boolean =>
  Reflect.getMetadata(MESSAGE_RATE_LIMIT_KEY, ctx.getHandler()) === 'deferred';

/**
 * Parameter decorator: the rate-limit verdict of a `@MessageRateLimit({ deferred: true })` route,
 * a promise that resolves when the request is within its limits and rejects with the 429
 * (`ThrottlerException`) otherwise. On any other route it is already resolved.
 */
export const RateLimitVerdict = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Promise<void> =>
    ctx.switchToHttp().getRequest<DeferredRequest>()[DEFERRED_VERDICT] ?? Promise.resolve(),
);

/**
 * Global interceptor (registered by `AuthModule`): on a deferred route, the request's answer
 * waits for the rate-limit verdict, and a 429 takes precedence over the handler's result or error
 * (as it did when the guard counted first).
 */
@Injectable()
export class RateLimitVerdictInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const verdict = ctx.getType() === 'http' ? ctx.switchToHttp().getRequest<DeferredRequest>()[DEFERRED_VERDICT] : undefined;
    if (!verdict) return next.handle();
    return next.handle().pipe(
      catchError((e: unknown) => from(verdict.then(() => Promise.reject(e)))),
      mergeMap((value) => from(verdict.then(() => value))),
    );
  }
}

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
  Reflect.getMetadata(MESSAGE_RATE_LIMIT_KEY, ctx.getHandler()) !== undefined;

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

  /** On a deferred route the count runs alongside the handler (see `MessageRateLimit`). */
  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    if (!isDeferred(props.context)) return super.handleRequest(props);
    const req = props.context.switchToHttp().getRequest<DeferredRequest>();
    const own = super.handleRequest(props).then(() => undefined);
    const previous = req[DEFERRED_VERDICT];
    const verdict = previous ? Promise.all([previous, own]).then(() => undefined) : own;
    verdict.catch(() => undefined); // awaited by the handler and the interceptor, not here
    req[DEFERRED_VERDICT] = verdict;
    return true;
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
