import { randomUUID } from 'node:crypto';
import { Injectable, Logger, NotFoundException, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { findOperatorById } from '@corpus-chat/persistence';
import { TurnEventBus, untraced } from '@corpus-chat/server-core';
import { ApiEnv } from '../config/api-env';
import { ChatService } from './chat.service';
import { TurnDispatcher } from './turn-dispatcher';

/**
 * Pays the first message's costs before the API listens: opens `DB_POOL_MIN` connections, runs the
 * store path against an absent thread (404, nothing written) and the Redis scripts for an absent turn.
 */
@Injectable()
export class ChatWarmup implements OnApplicationBootstrap {
  private readonly logger = new Logger(ChatWarmup.name);

  constructor(
    private readonly chats: ChatService,
    private readonly dispatcher: TurnDispatcher,
    private readonly bus: TurnEventBus,
    private readonly db: DataSource,
    private readonly env: ApiEnv,
  ) {}

  /** Never rejects: a failed warm-up (Postgres not up yet) only leaves the first message slower. */
  async onApplicationBootstrap(): Promise<void> {
    const started = Date.now();
    const absent = randomUUID();
    const connections = Math.max(1, Math.min(this.env.DB_POOL_MIN, this.env.DB_POOL_SIZE));
    const post = async () => {
      await findOperatorById(this.db, absent);
      await this.chats
        .postMessage({ id: absent, language: 'en' }, absent, { content: 'How many findings are there?' }, {})
        .catch((e: unknown) => {
          if (!(e instanceof NotFoundException)) throw e;
        });
    };
    try {
      await untraced(async () => {
        await Promise.all(Array.from({ length: connections }, post));
        await this.bus.publish(absent, absent, { type: 'turn.queued', position: 1 });
        await this.dispatcher.forget([absent]); // the queue's job removal, the event stream
      });
      this.logger.log(`warmed up in ${Date.now() - started} ms`);
    } catch (e) {
      this.logger.warn(`warm-up failed after ${Date.now() - started} ms: ${(e as Error).message}`);
    }
  }
}
