import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { type RunTurnJobResult, WEBHOOKS_QUEUE } from '@corpus-chat/contracts';
import type { TurnRunStart } from '@corpus-chat/persistence';
import {
  queueTurnWebhooks,
  TurnEventBus,
  terminalEventOfStored,
  type WebhookQueue,
} from '@corpus-chat/server-core';

/**
 * An attempt that finds its turn's answer already stored: an earlier attempt stored it and died
 * before (or while) reporting it. The turn is not run again; its ending is published again.
 */
@Injectable()
export class RecoverTurn {
  private readonly logger = new Logger(RecoverTurn.name);

  constructor(
    private readonly bus: TurnEventBus,
    @InjectQueue(WEBHOOKS_QUEUE) private readonly webhooks: WebhookQueue,
  ) {}

  async execute(
    turn: Pick<TurnRunStart, 'turnId' | 'chatId'>,
    answer: NonNullable<TurnRunStart['answer']>,
  ): Promise<RunTurnJobResult> {
    this.logger.log(
      `turn ${turn.turnId}: already answered by an earlier attempt (message ${answer.id}); not running again`,
    );
    const event = terminalEventOfStored(answer.status, answer.id, answer.metadata);
    await this.bus.publish(turn.chatId, turn.turnId, event);
    await queueTurnWebhooks(this.webhooks, turn.turnId);
    return { messageId: answer.id, status: answer.status };
  }
}
