import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, ThrottlerException, type ThrottlerStorage } from '@nestjs/throttler';
import { withTimeout } from '@corpus-chat/server-core';
import { ApiEnv } from '../config/api-env';
import { TurnQueueUnavailableError } from './turn-dispatcher';

const WINDOW_MS = 60_000;

/**
 * The operator's `MESSAGES_PER_MINUTE`, counted (in the throttler's Redis storage, shared by every
 * API instance) only for a message that passed every other check and is about to be stored: a post
 * refused as 404, 409 or 429 for the active-turn limit never uses up the budget, so a client that
 * retries while its turns run is not locked out.
 */
@Injectable()
export class MessageBudget {
  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    private readonly env: ApiEnv,
  ) {}

  /**
   * Counts one message of `ownerId`. Resolves when within the budget; rejects with a 429
   * (`ThrottlerException`, saying when to try again) over it, and with `TurnQueueUnavailableError`
   * when Redis does not answer within `REDIS_REQUEST_TIMEOUT_MS` (the storage lets requests through
   * when Redis refuses outright).
   */
  async spend(ownerId: string): Promise<void> {
    const key = `${this.env.REDIS_PREFIX}:auth:throttle:messages:op:${ownerId}`;
    const limit = this.env.MESSAGES_PER_MINUTE;
    let record;
    try {
      record = await withTimeout(
        this.storage.increment(key, WINDOW_MS, limit, WINDOW_MS, 'messages'),
        this.env.REDIS_REQUEST_TIMEOUT_MS,
        'count the message',
      );
    } catch (e) {
      throw new TurnQueueUnavailableError('count the message', e);
    }
    if (record.isBlocked) {
      const seconds = Math.max(1, Math.ceil(record.timeToBlockExpire));
      throw new ThrottlerException(
        `You are sending messages too fast (at most ${limit} a minute). Try again in ${seconds} s.`,
      );
    }
  }
}
