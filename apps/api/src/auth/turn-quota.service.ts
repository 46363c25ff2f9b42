import { randomUUID } from 'node:crypto';
import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import { AUTH_REDIS, authKey, redisUnavailable } from './auth.redis';

/** 429 for a message that would exceed the operator's queued/running turns. */
export class TooManyActiveTurnsException extends HttpException {
  constructor(limit: number) {
    super(
      {
        statusCode: 429,
        error: 'Too Many Requests',
        message: `You already have ${limit} turn${limit === 1 ? '' : 's'} queued or running (the limit per operator). Wait for one to finish, or stop one, before asking again.`,
      },
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}

/** Longest a quota lock is held if its holder dies (ms). */
const LOCK_TTL_MS = 10_000;
/** Longest a message waits for the operator's other message in flight (ms). */
const LOCK_WAIT_MS = 5_000;
const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * At most `MAX_ACTIVE_TURNS_PER_OPERATOR` turns queued or running per operator, so one operator
 * cannot fill the workers while others wait. The chat service counts the operator's active turns
 * and starts the new one inside `withOperatorLock`, so concurrent posts (on any API instance)
 * cannot both pass the check.
 */
@Injectable()
export class TurnQuotaService {
  constructor(
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
    @Inject(AUTH_REDIS) private readonly redis: Redis,
  ) {}

  /** The configured limit (turns queued or running at once per operator). */
  get limit(): number {
    return this.env.MAX_ACTIVE_TURNS_PER_OPERATOR;
  }

  /**
   * Throws `TooManyActiveTurnsException` (429) when `activeTurns` (the operator's turns queued or
   * running now, not counting the one about to be queued) has reached the limit.
   */
  assertMayQueue(activeTurns: number): void {
    if (activeTurns >= this.limit) throw new TooManyActiveTurnsException(this.limit);
  }

  /**
   * Runs `fn` while holding the operator's quota lock in Redis (one message of an operator at a
   * time is between "count active turns" and "turn stored"). Waits up to 5 s for the lock, then
   * answers 429; 503 while Redis is unreachable. The lock expires after 10 s if its holder dies.
   */
  async withOperatorLock<T>(operatorId: string, fn: () => Promise<T>): Promise<T> {
    const key = authKey(this.env, 'turn-quota-lock', operatorId);
    const token = randomUUID();
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      const got = await this.redis.set(key, token, 'PX', LOCK_TTL_MS, 'NX').catch(() => {
        throw redisUnavailable('Posting a message');
      });
      if (got === 'OK') break;
      if (Date.now() > deadline) throw new TooManyActiveTurnsException(this.limit);
      await new Promise((r) => setTimeout(r, 20));
    }
    try {
      return await fn();
    } finally {
      // A failed release only delays the operator's next message until the lock expires.
      await this.redis.eval(RELEASE_SCRIPT, 1, key, token).catch(() => undefined);
    }
  }
}
