import { ServiceUnavailableException } from '@nestjs/common';
import { createRedisConnection, type RedisClient, redisRoot } from '@corpus-chat/server-core';
import type { AuthEnv } from './auth.env';

/** Nest token of the ioredis client the auth layer uses for commands (login slow-down, rate limits). */
export const AUTH_REDIS = Symbol('AUTH_REDIS');

/**
 * A Redis client that reconnects forever and fails commands at once while disconnected, or after
 * `REDIS_REQUEST_TIMEOUT_MS`, so a request answers instead of hanging.
 */
export function createAuthRedis(env: AuthEnv): RedisClient {
  return createRedisConnection(env, 'api-auth-commands', 'fail-fast', {
    commandTimeoutMs: env.REDIS_REQUEST_TIMEOUT_MS,
  });
}

/** 503 for a request that needs Redis while it is unreachable. */
export const redisUnavailable = (what: string): ServiceUnavailableException =>
  new ServiceUnavailableException(
    `${what} is unavailable right now (Redis is not reachable). Try again in a moment.`,
  );

/** Key or channel `parts` under the deployment's prefix: `{cc}:auth:login-fail:user:alice`. */
export const authKey = (env: AuthEnv, ...parts: string[]): string =>
  [redisRoot(env.REDIS_PREFIX), 'auth', ...parts].join(':');
