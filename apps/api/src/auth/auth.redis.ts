import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { AuthEnv } from './auth.env';

/** Nest token of the ioredis client the auth layer uses for commands (login slow-down, rate limits, revocations). */
export const AUTH_REDIS = Symbol('AUTH_REDIS');

/**
 * A Redis client for `env.REDIS_URL` that retries forever with a capped backoff and fails commands
 * fast while disconnected (so a request answers instead of hanging).
 */
export function createAuthRedis(env: AuthEnv, role: string): Redis {
  const logger = new Logger(`AuthRedis:${role}`);
  const client = new Redis(env.REDIS_URL, {
    connectionName: `corpus-chat-api-auth-${role}`,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  client.on('error', (e: Error) => logger.warn(`Redis error: ${e.message}`));
  return client;
}

/** Key or channel `parts` under the deployment's prefix: `cc:auth:login-fail:user:alice`. */
export const authKey = (env: AuthEnv, ...parts: string[]): string => [env.REDIS_PREFIX, 'auth', ...parts].join(':');
