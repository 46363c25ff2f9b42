import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { QueuePositions } from '@corpus-chat/persistence';
import { TurnEventBus, withTimeout } from '@corpus-chat/server-core';
import { ApiEnv } from '../config/api-env';

/** How often waiting turns are told their new place: at most one `turn.queued` per turn per period. */
const REFRESH_INTERVAL_MS = 1000;

/**
 * Once a second recomputes queue positions (one instance at a time) and publishes
 * `turn.queued {position}` for each change; a failed publish is not retried.
 */
@Injectable()
export class QueuePositionPublisher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(QueuePositionPublisher.name);
  private timer?: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private failing = false;

  constructor(
    private readonly positions: QueuePositions,
    private readonly bus: TurnEventBus,
    private readonly env: ApiEnv,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running ??= this.refresh().finally(() => (this.running = null));
    }, REFRESH_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async refresh(): Promise<void> {
    try {
      // All at once: a burst moves hundreds of turns, and one round trip each would keep Redis and
      // this process waking up in turn (bench scenario 3, the API's CPU per turn).
      const moved = await this.positions.refresh();
      await Promise.all(
        moved.map((m) =>
          withTimeout(
            this.bus.publish(m.chatId, m.turnId, { type: 'turn.queued', position: m.position }),
            this.env.REDIS_REQUEST_TIMEOUT_MS,
            'publish turn.queued',
          ),
        ),
      );
      if (this.failing) this.logger.log('queue positions are published again');
      this.failing = false;
    } catch (e) {
      // Once per outage: the refresh runs every second.
      if (!this.failing) this.logger.warn(`queue positions not refreshed: ${(e as Error).message}`);
      this.failing = true;
    }
  }
}
