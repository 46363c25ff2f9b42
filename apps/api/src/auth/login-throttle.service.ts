import { Inject, Injectable } from '@nestjs/common';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import { redisHang, type RedisClient } from '@corpus-chat/server-core';
import { AUTH_REDIS, authKey, redisUnavailable } from './auth.redis';

/** Failures are forgotten this long after the last one. */
const FAILURE_WINDOW_MS = 15 * 60_000;
/** Longest wait imposed between two sign-in attempts. */
const MAX_WAIT_MS = 5 * 60_000;

/**
 * Checks the waits and reserves the attempt atomically. KEYS: username, (username, IP), IP counts.
 * ARGV: now, free attempts per username and per IP, longest wait, window (ms). Returns ms to wait
 * (0: reserved as a failure until `succeeded`).
 */
const RESERVE_SCRIPT = `
local now, freeUser, freeIp, maxWait, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local function waitOf(key, free)
  local count = tonumber(redis.call('HGET', key, 'count') or '0')
  if count < free then return 0 end
  local lastAt = tonumber(redis.call('HGET', key, 'lastAt') or '0')
  return lastAt + math.min(1000 * 2 ^ (count - free), maxWait) - now
end
local wait = math.max(waitOf(KEYS[3], freeIp), waitOf(KEYS[2], freeUser))
if redis.call('EXISTS', KEYS[2]) == 1 then wait = math.max(wait, waitOf(KEYS[1], freeUser)) end
if wait > 0 then return math.ceil(wait) end
for i = 1, 3 do
  redis.call('HINCRBY', KEYS[i], 'count', 1)
  redis.call('HSET', KEYS[i], 'lastAt', ARGV[1])
  redis.call('PEXPIRE', KEYS[i], window)
end
return 0
`;

/** Forgets the username's and the pair's failures and takes one back from the IP's count (if it still exists). */
const SUCCEEDED_SCRIPT = `
redis.call('DEL', KEYS[1], KEYS[2])
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('HINCRBY', KEYS[3], 'count', -1) end
return 0
`;

/**
 * Slows password guessing across instances (Redis), per username, (username, IP) and IP. After
 * `LOGIN_FREE_ATTEMPTS` failures (4× per IP) each attempt waits 1 s, 2 s, 4 s… (≤ 5 min) or gets
 * 429. The username's count only slows addresses that failed for it, so a clean address is never
 * locked out. Redis down: 503 rather than unlimited guesses.
 */
@Injectable()
export class LoginThrottleService {
  constructor(
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
    @Inject(AUTH_REDIS) private readonly redis: RedisClient,
  ) {}

  private keys(username: string, ip: string): [user: string, pair: string, ip: string] {
    const name = username.toLowerCase();
    return [
      authKey(this.env, 'login-fail', 'user', name),
      authKey(this.env, 'login-fail', 'pair', ip, name),
      authKey(this.env, 'login-fail', 'ip', ip),
    ];
  }

  /** Reserves an attempt: ms to wait, or 0 (a failure until `succeeded`). 503 without Redis. */
  async reserveAttempt(username: string, ip: string, now = Date.now()): Promise<number> {
    const free = this.env.LOGIN_FREE_ATTEMPTS;
    const wait = await redisHang
      .run(this.env.REDIS_URL, 'sign-in', () =>
        this.redis.eval(
          RESERVE_SCRIPT,
          3,
          ...this.keys(username, ip),
          now,
          free,
          free * 4,
          MAX_WAIT_MS,
          FAILURE_WINDOW_MS,
        ),
      )
      .catch(() => {
        throw redisUnavailable('Sign-in');
      });
    return Number(wait);
  }

  /**
   * A reserved attempt of `username` from `ip` had the right password: forgets the failures of the
   * username (and of the pair) and takes the attempt back from the IP's count.
   */
  async succeeded(username: string, ip: string): Promise<void> {
    await redisHang
      .run(this.env.REDIS_URL, 'sign-in', () =>
        this.redis.eval(SUCCEEDED_SCRIPT, 3, ...this.keys(username, ip)),
      )
      .catch(() => {
        throw redisUnavailable('Sign-in');
      });
  }
}
