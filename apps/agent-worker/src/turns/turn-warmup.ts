import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { TurnLedger } from '@corpus-chat/persistence';
import {
  AGENT_RUNNER,
  type AgentRunner,
  TurnCancelSignals,
  TurnEventBus,
  untraced,
} from '@corpus-chat/server-core';
import { WorkerEnv } from '../config/worker-env';

/**
 * Pays the first turn's costs before taking jobs: opens `DB_POOL_MIN` connections running a turn's
 * statements for an absent turn, exercises the Redis scripts, and warms the runner.
 */
@Injectable()
export class TurnWarmup {
  private readonly logger = new Logger(TurnWarmup.name);

  constructor(
    private readonly ledger: TurnLedger,
    private readonly bus: TurnEventBus,
    private readonly cancels: TurnCancelSignals,
    @Inject(AGENT_RUNNER) private readonly runner: AgentRunner,
    private readonly env: WorkerEnv,
  ) {}

  /** Never rejects: a failed warm-up (Postgres not up yet) only leaves the first turn slower. */
  async run(): Promise<void> {
    const started = Date.now();
    const absent = randomUUID();
    const claim = { attempt: 1, workerId: 'warm-up', ownerId: absent, chatId: absent, userMessageId: absent };
    const connections = Math.max(1, Math.min(this.env.DB_POOL_MIN, this.env.DB_POOL_SIZE));
    const statements = async () => {
      await this.ledger.startRun(absent, claim);
      await this.ledger.attachment(absent);
      await this.ledger.finish(absent, { status: 'complete', content: '', metadata: {} });
    };
    try {
      await untraced(async () => {
        await Promise.all(Array.from({ length: connections }, statements));
        (await this.cancels.watch(absent, () => undefined))();
        await this.bus.publish(absent, absent, { type: 'turn.started', workerId: 'warm-up', attempt: 1 });
        await this.bus.forget([absent]);
        await this.runner.warmUp?.();
      });
      this.logger.log(`warmed up in ${Date.now() - started} ms`);
    } catch (e) {
      this.logger.warn(`warm-up failed after ${Date.now() - started} ms: ${(e as Error).message}`);
    }
  }
}
