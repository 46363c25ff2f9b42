import { setImmediate } from 'node:timers/promises';
import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { Namespace } from 'socket.io';
import { CHAT_NAMESPACE, type ChatEvent, SocketEvents } from '@corpus-chat/contracts';
import { closeRedis, createRedisConnection, type RedisClient, RedisKeys } from '@corpus-chat/server-core';
import { operatorRoom } from '../auth/socket-auth.service';
import { ApiEnv } from '../config/api-env';
import { TurnActivityService } from './turn-activity.service';

/**
 * Forwards every turn's lifecycle events to its owner's pages as `chat:activity`. Each instance
 * emits to its own sockets only; a reconnecting page reloads instead of a replay.
 */
@WebSocketGateway({ namespace: CHAT_NAMESPACE })
export class TurnActivityGateway implements OnGatewayInit, OnApplicationShutdown {
  private readonly logger = new Logger(TurnActivityGateway.name);
  private subscriber?: RedisClient;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly env: ApiEnv,
    private readonly keys: RedisKeys,
    private readonly activity: TurnActivityService,
  ) {}

  afterInit(server: Namespace): void {
    const subscriber = createRedisConnection(this.env, 'api:turn-activity', 'subscriber');
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, message: string) => {
      // One at a time, so a page gets a turn's activity in the order it was published; each after
      // the poll that read it, so the thread's own event, read with it, reaches its sockets first.
      this.tail = this.tail
        .then(() => setImmediate())
        .then(() => this.forward(server, message))
        .catch((e: Error) => this.logger.warn(`turn activity not forwarded: ${e.message}`));
    });
    subscriber
      .subscribe(this.keys.turnActivity)
      .catch((e: Error) => this.logger.warn(`turn activity not subscribed: ${e.message}`));
  }

  private async forward(server: Namespace, message: string): Promise<void> {
    const event = JSON.parse(message) as ChatEvent;
    const here = (ownerId: string) => server.adapter.rooms.has(operatorRoom(ownerId));
    const found = await this.activity.activityOf(event, here);
    if (found) server.local.to(operatorRoom(found.ownerId)).emit(SocketEvents.activity, found.activity);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.subscriber) await closeRedis(this.subscriber);
  }
}
