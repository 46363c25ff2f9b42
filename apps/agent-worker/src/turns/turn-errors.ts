import type { TurnErrorCode } from '@corpus-chat/contracts';
import type { PartialAnswer } from '@corpus-chat/server-core';
import { UnrecoverableError } from 'bullmq';

/**
 * An attempt failed in a way another attempt may fix (a model server not answering, a crash of
 * the agent): BullMQ retries the job; after the last attempt the turn ends in `turn.error`.
 */
export class TurnAttemptError extends Error {
  constructor(
    readonly code: TurnErrorCode,
    message: string,
    readonly partial: PartialAnswer,
  ) {
    super(message);
    this.name = 'TurnAttemptError';
  }
}

/**
 * The turn failed for good (a timeout, a foreign owner, a non-retryable agent error): no retry,
 * the turn ends in `turn.error` with `message`, which a person can act on.
 */
export class TurnFailedError extends UnrecoverableError {
  constructor(
    readonly code: TurnErrorCode,
    message: string,
    readonly partial: PartialAnswer,
  ) {
    super(message);
    this.name = 'TurnFailedError';
  }
}

/** Why a turn's AbortSignal fired (`lock-lost`: another worker took its job over). */
export class TurnAbort extends Error {
  constructor(readonly kind: 'cancelled' | 'timeout' | 'shutdown' | 'lock-lost') {
    super(`turn ${kind}`);
    this.name = 'TurnAbort';
  }
}
