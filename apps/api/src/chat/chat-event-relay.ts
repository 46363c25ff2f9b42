import { Injectable, Logger } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { type ChatEvent, SocketEvents } from '@corpus-chat/contracts';
import {
  retryWhileRedisUnavailable,
  TurnEventBus,
  TurnEventSubscriber,
  turnTrace,
} from '@corpus-chat/server-core';

/** One socket following one thread. */
interface Attachment {
  socket: Socket;
  chatId: string;
  /**
   * The subscription of this attachment's handler: its remover once Redis confirmed, null if it
   * failed. Releasing waits for it, so a subscription still in flight is taken back when it lands.
   */
  subscription: Promise<(() => Promise<void>) | null>;
  /** The turn whose events it sent last (replayed after the subscriber reconnected). */
  turnId?: string;
}

/**
 * Forwards turn events from Redis to this instance's sockets: subscribe first, then replay, so
 * live events may overtake the replay (the client drops duplicates and gaps). Each instance emits
 * only to its own sockets, so each socket gets each event once.
 */
@Injectable()
export class ChatEventRelay {
  private readonly logger = new Logger(ChatEventRelay.name);
  private readonly attachments = new Map<Socket, Map<string, Attachment>>();

  constructor(
    private readonly subscriber: TurnEventSubscriber,
    private readonly bus: TurnEventBus,
  ) {
    subscriber.onResubscribed(() => void this.replayAfterReconnect());
  }

  /**
   * After Redis came back, replays each attachment's turn, since events published meanwhile were
   * missed; retried for a few seconds, as the command connection may come back after the
   * subscriber. Sent to whichever attachment follows the thread by then (the client may have
   * joined again after a gap).
   */
  private async replayAfterReconnect(): Promise<void> {
    for (const attachment of [...this.attachments.values()].flatMap((m) => [...m.values()])) {
      if (!attachment.turnId) continue;
      try {
        const turnId = attachment.turnId;
        const replay = await retryWhileRedisUnavailable(() => this.bus.replay(turnId), Date.now() + 5000);
        const current = this.attachments.get(attachment.socket)?.get(attachment.chatId);
        if (!current) continue;
        current.turnId ??= turnId;
        for (const event of replay) this.send(attachment.socket, event);
      } catch (e) {
        this.logger.warn(
          `turn ${attachment.turnId}: replay after a reconnect failed: ${(e as Error).message}`,
        );
      }
    }
  }

  /**
   * Makes `socket` follow thread `chatId`: subscribes, then replays the active turn after `afterSeq`
   * and forwards live events. Resolves with that turn's id, or null (none active, or the socket
   * stopped following meanwhile). Rejects when Redis is unreachable.
   */
  async attach(
    socket: Socket,
    chatId: string,
    afterSeq: string | undefined,
    findActiveTurn: () => Promise<{ turnId: string } | null>,
  ): Promise<{ turnId: string } | null> {
    // A disconnected socket's `detachAll` has run or is running: anything attached now would stay.
    if (socket.disconnected) return null;
    const attachment: Attachment = { socket, chatId, subscription: Promise.resolve(null) };
    const subscribing = this.subscriber.subscribeChat(chatId, (event) => {
      if (!this.isCurrent(attachment)) return;
      attachment.turnId = event.turnId;
      this.send(socket, event);
    });
    attachment.subscription = subscribing.catch(() => null);
    // Registered in the same tick as the subscription, so every attachment that holds one is in
    // the map (or being released) and the count of handlers matches the count of attachments.
    let perSocket = this.attachments.get(socket);
    if (!perSocket) this.attachments.set(socket, (perSocket = new Map()));
    const previous = perSocket.get(chatId);
    // A join again follows the same turn (for `replayAfterReconnect`) until it finds another.
    const inherited = (attachment.turnId = previous?.turnId);
    perSocket.set(chatId, attachment);
    try {
      if (previous) await this.release(previous);
      await subscribing;
      if (!this.isCurrent(attachment)) return null;
      const active = await findActiveTurn();
      if (!this.isCurrent(attachment)) return null;
      if (active && attachment.turnId === inherited) attachment.turnId = active.turnId;
      // A join again after a gap (`afterSeq`) also gets the rest of the turn it followed when that
      // turn ended meanwhile: its answer was stored while Redis was away, say.
      const turnId = active?.turnId ?? (afterSeq === undefined ? undefined : inherited);
      if (!turnId) return null;
      const replay = await this.bus.replay(turnId, afterSeq);
      if (!this.isCurrent(attachment)) return null;
      for (const event of replay) this.send(socket, event);
      return active && { turnId: active.turnId };
    } catch (e) {
      await this.remove(attachment);
      throw e;
    }
  }

  /** Stops forwarding thread `chatId` to `socket`; resolves once its subscription is released. */
  async detach(socket: Socket, chatId: string): Promise<void> {
    const attachment = this.attachments.get(socket)?.get(chatId);
    if (attachment) await this.remove(attachment);
  }

  /** Stops forwarding every thread to `socket` (it disconnected). */
  async detachAll(socket: Socket): Promise<void> {
    const attachments = [...(this.attachments.get(socket)?.values() ?? [])];
    await Promise.all(attachments.map((a) => this.remove(a)));
  }

  /** Threads followed by sockets of this instance (for tests and diagnostics). */
  get followedThreads(): number {
    return new Set([...this.attachments.values()].flatMap((m) => [...m.keys()])).size;
  }

  private isCurrent(attachment: Attachment): boolean {
    return this.attachments.get(attachment.socket)?.get(attachment.chatId) === attachment;
  }

  /** Takes `attachment` out of the map (if still there) and releases its subscription. */
  private async remove(attachment: Attachment): Promise<void> {
    const perSocket = this.attachments.get(attachment.socket);
    if (perSocket?.get(attachment.chatId) === attachment) {
      perSocket.delete(attachment.chatId);
      if (!perSocket.size) this.attachments.delete(attachment.socket);
    }
    await this.release(attachment);
  }

  private async release(attachment: Attachment): Promise<void> {
    const unsubscribe = await attachment.subscription;
    await unsubscribe?.();
  }

  private send(socket: Socket, event: ChatEvent): void {
    turnTrace.mark(event.turnId, `relay:${event.type}`);
    socket.emit(SocketEvents.event, event);
  }
}
