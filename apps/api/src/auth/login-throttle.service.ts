import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import { AUTH_REDIS, authKey, redisUnavailable } from './auth.redis';

/** Failures are forgotten this long after the last one. */
const FAILURE_WINDOW_MS = 15 * 60_000;
/** Longest wait imposed between two sign-in attempts. */
const MAX_WAIT_MS = 5 * 60_000;

interface FailureState {
  count: number;
  lastAt: number;
}

/**
 * Slows down password guessing, per username and per client IP, shared by every API instance
 * through Redis. The first `LOGIN_FREE_ATTEMPTS` failures (4× that per IP, which may be shared by
 * many people) cost nothing; after that each further attempt must wait 1 s, 2 s, 4 s… (capped at
 * 5 minutes) since the last failure, or it is refused (429 with `Retry-After`) without checking
 * the password. A successful sign-in clears the username's count. While Redis is unreachable,
 * sign-in answers 503 rather than allowing unlimited guesses.
 */
@Injectable()
export class LoginThrottleService {
  constructor(
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
    @Inject(AUTH_REDIS) private readonly redis: Redis,
  ) {}

  private keys(username: string, ip: string): { key: string; free: number }[] {
    return [
      { key: authKey(this.env, 'login-fail', 'user', username.toLowerCase()), free: this.env.LOGIN_FREE_ATTEMPTS },
      { key: authKey(this.env, 'login-fail', 'ip', ip), free: this.env.LOGIN_FREE_ATTEMPTS * 4 },
    ];
  }

  /**
   * Milliseconds `username` or `ip` must still wait before another sign-in attempt is looked at
   * (0 when it may try now).
   */
  async msToWait(username: string, ip: string, now = Date.now()): Promise<number> {
    let waitMs = 0;
    for (const { key, free } of this.keys(username, ip)) {
      const raw = await this.redis.hmget(key, 'count', 'lastAt').catch(() => {
        throw redisUnavailable('Sign-in');
      });
      const state: FailureState = { count: Number(raw[0] ?? 0), lastAt: Number(raw[1] ?? 0) };
      if (state.count < free) continue;
      const required = Math.min(1000 * 2 ** (state.count - free), MAX_WAIT_MS);
      waitMs = Math.max(waitMs, state.lastAt + required - now);
    }
    return waitMs;
  }

  /** Counts one failed attempt against `username` and `ip`. */
  async recordFailure(username: string, ip: string, now = Date.now()): Promise<void> {
    const tx = this.redis.multi();
    for (const { key } of this.keys(username, ip)) {
      tx.hincrby(key, 'count', 1).hset(key, 'lastAt', String(now)).pexpire(key, FAILURE_WINDOW_MS);
    }
    await tx.exec().catch(() => {
      throw redisUnavailable('Sign-in');
    });
  }

  /** Forgets the failures of `username` (after a successful sign-in). */
  async reset(username: string): Promise<void> {
    await this.redis.del(authKey(this.env, 'login-fail', 'user', username.toLowerCase())).catch(() => {
      throw redisUnavailable('Sign-in');
    });
  }
}
