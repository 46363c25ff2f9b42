import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import { WEBHOOKS_QUEUE } from '@corpus-chat/contracts';
import { TurnLedger } from '@corpus-chat/persistence';
import {
  finishTurn,
  retryWhileDatabaseUnavailable,
  retryWhileRedisUnavailable,
  type TurnEnding,
  TurnEventBus,
  type WebhookQueue,
} from '@corpus-chat/server-core';
import type { TurnEventStream } from './turn-event-stream';

/** Every end of a turn in the worker (done, cancelled, error) goes through `execute`. */
@Injectable()
export class EndTurn {
  private readonly logger = new Logger(EndTurn.name);

  constructor(
    private readonly ledger: TurnLedger,
    private readonly bus: TurnEventBus,
    @InjectQueue(WEBHOOKS_QUEUE) private readonly webhooks: WebhookQueue,
  ) {}

  /**
   * Stored and published once (after the held `events`), retrying with back-off while Postgres or
   * Redis is down until `until` (default: one try).
   */
  execute(turnId: string, ending: TurnEnding, until = 0, events?: TurnEventStream) {
    const patient = this.patientBus(turnId, until);
    const bus: Pick<TurnEventBus, 'publish'> = {
      publish: async (...args) => {
        await events?.settled();
        return patient.publish(...args);
      },
    };
    return retryWhileDatabaseUnavailable(
      () => finishTurn({ ledger: this.ledger, bus, webhooks: this.webhooks }, turnId, ending),
      until,
      (e, delayMs) =>
        this.logger.warn(
          `turn ${turnId}: the database is unreachable (${(e as Error).message}); ` +
            `storing its end again in ${delayMs} ms`,
        ),
    );
  }

  /** The event bus, retried while Redis is down until `until`: a restart does not fail the turn. */
  patientBus(turnId: string, until: number): Pick<TurnEventBus, 'publish'> {
    return {
      publish: (chatId, id, event) =>
        retryWhileRedisUnavailable(
          () => this.bus.publish(chatId, id, event),
          until,
          (e) =>
            this.logger.warn(
              `turn ${turnId}: Redis is unreachable (${(e as Error).message}); ` +
                'holding its events until it is back',
            ),
        ),
    };
  }
}
