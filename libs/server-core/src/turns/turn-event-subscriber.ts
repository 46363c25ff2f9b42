import { Logger } from '@nestjs/common';
import type { ChatEvent } from '@corpus-chat/contracts';
import { closeRedis, type RedisClient, withTimeout } from '../redis/redis-connection';
import type { RedisKeys } from '../redis/redis-keys';

export type ChatEventHandler = (event: ChatEvent) => void;

/**
 * Per-process subscriptions to thread event channels over one subscriber connection, reference
 * counted per thread: the first handler of a thread SUBSCRIBEs, the last one to leave
 * UNSUBSCRIBEs. ioredis re-subscribes by itself after a reconnect.
 */
export class TurnEventSubscriber {
  private readonly logger = new Logger(TurnEventSubscriber.name);
  private readonly handlers = new Map<string, Set<ChatEventHandler>>();
  private readonly reconnectHandlers = new Set<() => void>();
  private connection: RedisClient | null = null;
  private wasReady = false;

  /** `connect` creates the subscriber connection on first use (role `subscriber`). */
  constructor(
    private readonly connect: () => RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  private get redis(): RedisClient {
    if (!this.connection) {
      this.connection = this.connect();
      this.connection.on('message', (channel: string, message: string) => this.dispatch(channel, message));
      this.connection.on('ready', () => {
        if (this.wasReady) void this.resubscribed();
        this.wasReady = true;
      });
    }
    return this.connection;
  }

  /**
   * Calls `handler` each time the connection came back after losing Redis and every channel is
   * subscribed again: events published while it was away were missed live (they are in the
   * turns' streams). Returns a function that removes the handler.
   */
  onResubscribed(handler: () => void): () => void {
    this.reconnectHandlers.add(handler);
    return () => this.reconnectHandlers.delete(handler);
  }

  private async resubscribed(): Promise<void> {
    const channels = [...this.handlers.keys()];
    try {
      // ioredis re-subscribes by itself; this SUBSCRIBE resolves once Redis confirmed all of them.
      if (channels.length) await withTimeout(this.redis.subscribe(...channels), 5000, 'SUBSCRIBE again');
    } catch (e) {
      this.logger.warn(`re-subscribing after a reconnect: ${(e as Error).message}`);
      return;
    }
    for (const handler of this.reconnectHandlers) handler();
  }

  private dispatch(channel: string, message: string): void {
    const set = this.handlers.get(channel);
    if (!set?.size) return;
    let event: ChatEvent;
    try {
      event = JSON.parse(message) as ChatEvent;
    } catch (e) {
      this.logger.error(`unparseable event on ${channel}: ${(e as Error).message}`);
      return;
    }
    for (const handler of set) {
      try {
        handler(event);
      } catch (e) {
        this.logger.error(`event handler failed for turn ${event.turnId}: ${(e as Error).message}`);
      }
    }
  }

  /**
   * Calls `handler` for every event published on thread `chatId` from now on. Resolves once Redis
   * confirmed the subscription (so nothing published afterwards is missed) with a function that
   * removes the handler. Rejects when Redis does not confirm within `timeoutMs` (unreachable).
   */
  async subscribeChat(
    chatId: string,
    handler: ChatEventHandler,
    timeoutMs = 5000,
  ): Promise<() => Promise<void>> {
    const channel = this.keys.chatEvents(chatId);
    let set = this.handlers.get(channel);
    if (!set) this.handlers.set(channel, (set = new Set()));
    set.add(handler);
    // SUBSCRIBE again even when already subscribed: it resolves only once Redis confirmed, which
    // a second caller needs as much as the first.
    const subscribed = this.redis.subscribe(channel);
    try {
      await withTimeout(subscribed, timeoutMs, `SUBSCRIBE ${channel}`);
    } catch (e) {
      set.delete(handler);
      if (!set.size) {
        this.handlers.delete(channel);
        // A SUBSCRIBE that completes after the timeout is taken back.
        subscribed.then(
          () =>
            this.handlers.has(channel)
              ? undefined
              : this.connection?.unsubscribe(channel).catch(() => undefined),
          () => undefined,
        );
      }
      throw e;
    }
    let removed = false;
    return async () => {
      if (removed) return;
      removed = true;
      const current = this.handlers.get(channel);
      current?.delete(handler);
      if (current && !current.size) {
        this.handlers.delete(channel);
        // Also while reconnecting: the command is queued behind ioredis's re-subscription, which
        // would otherwise restore a channel nobody listens to. Only awaited when Redis is there,
        // so a leave or disconnect does not wait out an outage.
        const connection = this.connection;
        const unsubscribed = connection
          ?.unsubscribe(channel)
          .catch((e: Error) => this.logger.warn(`UNSUBSCRIBE ${channel}: ${e.message}`));
        if (connection?.status === 'ready') await unsubscribed;
      }
    };
  }

  /** Closes the subscriber connection. */
  async close(): Promise<void> {
    this.handlers.clear();
    if (this.connection) {
      const c = this.connection;
      this.connection = null;
      await closeRedis(c);
    }
  }
}
