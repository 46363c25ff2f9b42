import { Injectable, Logger } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { type ChatEvent, SocketEvents } from '@corpus-chat/contracts';
import { TurnEventBus, TurnEventSubscriber, turnTrace } from '@corpus-chat/server-core';

/** One socket following one thread. */
interface Attachment {
  socket: Socket;
  chatId: string;
  /** Highest seq sent to this socket, per turn: anything at or below it is a duplicate. */
  sent: Map<string, number>;
  /** Deliveries run one after the other (a gap fill reads Redis); starts blocked until the replay is done. */
  chain: Promise<void>;
  /**
   * The subscription of this attachment's handler: its remover once Redis confirmed, null if it
   * failed. Releasing waits for it, so a subscription still in flight is taken back when it lands.
   */
  subscription: Promise<(() => Promise<void>) | null>;
}

/**
 * Forwards turn events from Redis to the sockets of this API instance, per socket and in seq
 * order, without gaps or duplicates across the switch from replay to live:
 * 1. subscribe to the thread's channel first; live events queue behind a gate;
 * 2. read the active turn (after subscribing, so nothing can fall in between) and send its stored
 *    events after the client's `afterSeq`;
 * 3. open the gate: queued live events are sent if their seq is above what was sent.
 * A live event that skips seqs (published before the subscription took effect) is preceded by the
 * missing ones, read from the turn's stream.
 *
 * Multi-instance: every API instance subscribes to the threads its own sockets follow and emits
 * to those sockets only, so each socket gets each event exactly once whichever instance it is on.
 */
@Injectable()
export class ChatEventRelay {
  private readonly logger = new Logger(ChatEventRelay.name);
  private readonly attachments = new Map<Socket, Map<string, Attachment>>();

  constructor(
    private readonly subscriber: TurnEventSubscriber,
    private readonly bus: TurnEventBus,
  ) {}

  /**
   * Makes `socket` follow thread `chatId`: subscribes, asks `findActiveTurn` (called after the
   * subscription is live) for the turn to replay, sends its events after `afterSeq` (default 0),
   * then forwards live events. Resolves with that turn's id and the last seq sent for it; null when
   * no turn is active, or when the socket stopped following the thread meanwhile (a later attach or
   * detach of the same pair, or a disconnect: its subscription is then released, never kept).
   * Rejects when Redis is unreachable (the socket then follows nothing).
   */
  async attach(
    socket: Socket,
    chatId: string,
    afterSeq: number | undefined,
    findActiveTurn: () => Promise<{ turnId: string } | null>,
  ): Promise<{ turnId: string; lastSeq: number } | null> {
    // A disconnected socket's `detachAll` has run or is running: anything attached now would stay.
    if (socket.disconnected) return null;
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const attachment: Attachment = {
      socket,
      chatId,
      sent: new Map(),
      chain: gate,
      subscription: Promise.resolve(null),
    };
    const subscribing = this.subscriber.subscribeChat(chatId, (event) => this.enqueue(attachment, event));
    attachment.subscription = subscribing.catch(() => null);
    // Registered in the same tick as the subscription, so every attachment that holds one is in
    // the map (or being released) and the count of handlers matches the count of attachments.
    let perSocket = this.attachments.get(socket);
    if (!perSocket) this.attachments.set(socket, (perSocket = new Map()));
    const previous = perSocket.get(chatId);
    perSocket.set(chatId, attachment);
    try {
      if (previous) await this.release(previous);
      await subscribing;
      if (!this.isCurrent(attachment)) return null;
      const active = await findActiveTurn();
      if (!active || !this.isCurrent(attachment)) return null;
      attachment.sent.set(active.turnId, Math.max(0, afterSeq ?? 0));
      const replay = await this.bus.replay(active.turnId, afterSeq ?? 0);
      if (!this.isCurrent(attachment)) return null;
      for (const event of replay) this.send(attachment, event);
      return { turnId: active.turnId, lastSeq: attachment.sent.get(active.turnId) ?? 0 };
    } catch (e) {
      await this.remove(attachment);
      throw e;
    } finally {
      openGate();
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

  private enqueue(attachment: Attachment, event: ChatEvent): void {
    attachment.chain = attachment.chain
      .then(() => this.deliver(attachment, event))
      .catch((e: Error) =>
        this.logger.warn(`forwarding turn ${event.turnId} seq ${event.seq} failed: ${e.message}`),
      );
  }

  private async deliver(attachment: Attachment, event: ChatEvent): Promise<void> {
    if (!this.isCurrent(attachment)) return; // detached meanwhile
    const last = attachment.sent.get(event.turnId) ?? 0;
    if (event.seq <= last) return;
    if (event.seq > last + 1) {
      for (const missed of await this.bus.replay(event.turnId, last)) {
        if (missed.seq < event.seq) this.send(attachment, missed);
      }
    }
    this.send(attachment, event);
  }

  private send(attachment: Attachment, event: ChatEvent): void {
    const last = attachment.sent.get(event.turnId) ?? 0;
    if (event.seq <= last) return;
    attachment.sent.set(event.turnId, event.seq);
    turnTrace.mark(event.turnId, `relay:${event.type}`);
    attachment.socket.emit(SocketEvents.event, event);
  }
}
