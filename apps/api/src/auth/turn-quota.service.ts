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
 * At most `MAX_ACTIVE_TURNS_PER_OPERATOR` active turns per operator, enforced under the operator's
 * row lock where the turn is stored (`tryStartTurn`); 429 when reached.
 */
@Injectable()
export class TurnQuotaService {
  constructor(@Inject(AUTH_ENV) private readonly env: AuthEnv) {}

  /** The configured limit (turns queued or running at once per operator). */
  get limit(): number {
    return this.env.MAX_ACTIVE_TURNS_PER_OPERATOR;
  }
}
