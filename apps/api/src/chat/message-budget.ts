import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, ThrottlerException, type ThrottlerStorage } from '@nestjs/throttler';
import { withTimeout } from '@corpus-chat/server-core';
import { ApiEnv } from '../config/api-env';
import { TurnQueueUnavailableError } from './turn-dispatcher';

const WINDOW_MS = 60_000;

/**
 * `MESSAGES_PER_MINUTE` per operator, counted only for a message about to be stored, so refused
 * posts and retries never use up the budget.
 */
@Injectable()
export class MessageBudget {
  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    private readonly env: ApiEnv,
  ) {}

  /** Counts one message: 429 over the budget, `TurnQueueUnavailableError` on a Redis timeout. */
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
