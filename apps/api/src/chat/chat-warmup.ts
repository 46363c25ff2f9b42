import { randomUUID } from 'node:crypto';
import { Injectable, Logger, NotFoundException, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { findOperatorById } from '@corpus-chat/corpus-queries';
import { TurnEventBus, untraced } from '@corpus-chat/server-core';
import { ApiEnv } from '../config/api-env';
import { ChatService } from './chat.service';
import { TurnDispatcher } from './turn-dispatcher';

/**
 * What the first message after a start would otherwise pay for, done before the API listens (so
 * its health check answers only after): `DB_POOL_MIN` pool connections opened, each running a
 * request's operator lookup and a message post into a thread that does not exist (the whole store
 * path, answered 404 inside its transaction: nothing written, no budget spent), then that absent
 * turn's first event published and its job removed from the queue (Redis scripts; then deleted).
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
