import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { AUTH_ENV, type AuthEnv } from './auth.env';

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

/**
 * At most `MAX_ACTIVE_TURNS_PER_OPERATOR` turns queued or running per operator, so one operator
 * cannot fill the workers while others wait. The chat service asks before it enqueues a turn.
 */
@Injectable()
export class TurnQuotaService {
  constructor(@Inject(AUTH_ENV) private readonly env: AuthEnv) {}

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
}
