import { Inject, Injectable, Logger } from '@nestjs/common';
import type { RunTurnJobResult } from '@corpus-chat/contracts';
import type { PartialAnswer } from '@corpus-chat/server-core';
import { EndTurn } from './end-turn';
import { WORKER_ID } from './worker-id';

/**
 * Ends a turn the operator cancelled (before or while it ran) with what it streamed so far. A turn
 * already ended elsewhere changes nothing.
 */
@Injectable()
export class CancelTurn {
  private readonly logger = new Logger(CancelTurn.name);

  constructor(
    private readonly endTurn: EndTurn,
    @Inject(WORKER_ID) private readonly workerId: string,
  ) {}

  /** `attempt`: the run that was cancelled, stored only while it is the turn's current one. */
  async execute(turnId: string, partial?: PartialAnswer, attempt?: number): Promise<RunTurnJobResult> {
    const claim = attempt === undefined ? undefined : { attempt, workerId: this.workerId };
    const result = await this.endTurn.execute(turnId, { kind: 'cancelled', partial, claim });
    if (result.kind === 'finished') this.logger.log(`turn ${turnId} cancelled (message ${result.messageId})`);
    return { messageId: 'messageId' in result ? (result.messageId ?? '') : '', status: 'cancelled' };
  }
}
