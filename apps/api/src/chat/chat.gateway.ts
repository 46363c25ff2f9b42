import { Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  type OnGatewayDisconnect,
  type OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
  WebSocketServer,
} from '@nestjs/websockets';
import { z } from 'zod';
import type { Namespace, Socket } from 'socket.io';
import {
  type ActiveTurnView,
  CHAT_NAMESPACE,
  type JoinChatAck,
  SocketEvents,
  type ThreadUpdated,
} from '@corpus-chat/contracts';
import type { AuthenticatedOperator } from '../auth/current-operator';
import { operatorRoom, SocketAuthService } from '../auth/socket-auth.service';
import { TurnActivityService } from './turn-activity.service';
import { observeSockets } from '@corpus-chat/server-core';
import { ChatEventRelay } from './chat-event-relay';
import { ChatService } from './chat.service';
import { SocketLimits } from './socket-limits';

const isUUID = (text: string): boolean => z.guid().safeParse(text).success;

/** Room of a thread's followers on every instance. */
export const chatRoom = (chatId: string): string => `chat:${chatId}`;

type Ack = { ok: true } | { ok: false; error: string };

/** A Redis Stream entry id, the form of an event's seq. */
const SEQ = /^\d{1,20}-\d{1,20}$/;

const record = (body: unknown): Record<string, unknown> =>
  body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

/**
 * Socket.IO gateway of `/chat` (handshake authenticated by the auth layer). Each message checks the
 * operator owns the thread. `chat:join {chatId, afterSeq?}` replays the active turn then streams
 * `chat:event`; `chat:leave`, `chat:cancel`. Joins and leaves apply in order; `SocketLimits` caps use.
 */
@WebSocketGateway({ namespace: CHAT_NAMESPACE })
export class ChatGateway implements OnGatewayInit, OnGatewayDisconnect, OnModuleDestroy {
  private readonly logger = new Logger(ChatGateway.name);

  @WebSocketServer()
  server!: Namespace;

  /** Per socket and thread, the tail of its joins and leaves still running. */
  private readonly pending = new WeakMap<Socket, Map<string, Promise<unknown>>>();

  constructor(
    private readonly chats: ChatService,
    private readonly relay: ChatEventRelay,
    private readonly socketAuth: SocketAuthService,
    private readonly limits: SocketLimits,
    private readonly activity: TurnActivityService,
  ) {}

  afterInit(server: Namespace): void {
    this.socketAuth.attach(server);
    this.limits.attach(server); // after authentication: the socket cap counts per operator
    this.unobserve = observeSockets(() => server.sockets.size);
  }

  private unobserve = (): void => undefined;

  onModuleDestroy(): void {
    this.unobserve();
  }

  /**
   * Runs `work` after the socket's earlier joins and leaves of `chatId` have settled, so a leave
   * sent after a join is not overtaken by it (the handlers await the database and Redis).
   */
  private inOrder<T>(socket: Socket, chatId: string, work: () => Promise<T>): Promise<T> {
    let perSocket = this.pending.get(socket);
    if (!perSocket) this.pending.set(socket, (perSocket = new Map()));
    const run = (perSocket.get(chatId) ?? Promise.resolve()).then(work);
    const tail = run.catch(() => undefined);
    perSocket.set(chatId, tail);
    void tail.then(() => {
      if (perSocket.get(chatId) === tail) perSocket.delete(chatId);
    });
    return run;
  }

  async handleDisconnect(socket: Socket): Promise<void> {
    await this.relay.detachAll(socket);
  }

  private operatorOf(socket: Socket): AuthenticatedOperator | undefined {
    return (socket.data as { operator?: AuthenticatedOperator }).operator;
  }

  @SubscribeMessage(SocketEvents.join)
  async join(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<JoinChatAck> {
    const operator = this.operatorOf(socket);
    if (!operator) return { ok: false, error: 'unauthorized' };
    const { chatId, afterSeq } = record(body);
    if (typeof chatId !== 'string' || !isUUID(chatId)) return { ok: false, error: 'chatId must be a UUID' };
    if (afterSeq !== undefined && !(typeof afterSeq === 'string' && SEQ.test(afterSeq))) {
      return { ok: false, error: 'afterSeq must be an event seq such as "1733550000000-0"' };
    }
    return this.inOrder(socket, chatId, async (): Promise<JoinChatAck> => {
      try {
        if (!(await this.chats.ownsChat(operator.id, chatId))) return { ok: false, error: 'not found' };
        await socket.join(chatRoom(chatId));
        const found: { view: ActiveTurnView | null } = { view: null };
        const replayed = await this.relay.attach(socket, chatId, afterSeq, async () => {
          found.view = await this.chats.activeTurn(operator.id, chatId);
          return found.view;
        });
        return { ok: true, activeTurn: replayed && found.view };
      } catch (e) {
        await socket.leave(chatRoom(chatId));
        this.logger.warn(`join of chat ${chatId} failed: ${(e as Error).message}`);
        return { ok: false, error: 'unavailable' };
      }
    });
  }

  @SubscribeMessage(SocketEvents.leave)
  async leave(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<Ack> {
    const { chatId } = record(body);
    if (typeof chatId !== 'string' || !isUUID(chatId)) return { ok: false, error: 'chatId must be a UUID' };
    return this.inOrder(socket, chatId, async () => {
      await this.relay.detach(socket, chatId);
      await socket.leave(chatRoom(chatId));
      return { ok: true };
    });
  }

  @SubscribeMessage(SocketEvents.cancel)
  async cancel(@ConnectedSocket() socket: Socket, @MessageBody() body: unknown): Promise<Ack> {
    const operator = this.operatorOf(socket);
    if (!operator) return { ok: false, error: 'unauthorized' };
    const { chatId, turnId } = record(body);
    if (typeof chatId !== 'string' || !isUUID(chatId) || typeof turnId !== 'string' || !isUUID(turnId)) {
      return { ok: false, error: 'chatId and turnId must be UUIDs' };
    }
    try {
      await this.chats.cancelTurn(operator.id, chatId, turnId);
      return { ok: true };
    } catch (e) {
      const status = (e as { getStatus?: () => number }).getStatus?.();
      return { ok: false, error: status === 404 ? 'not found' : 'unavailable' };
    }
  }

  /**
   * Sends the thread's new list entry (null: deleted) to every page of its owner, on any instance
   * (through the Redis adapter). A failure is logged: the pages read the list again on reconnect.
   */
  async notifyThreadUpdated(ownerId: string, chatId: string): Promise<void> {
    try {
      const update: ThreadUpdated = { chatId, thread: await this.activity.summary(ownerId, chatId) };
      this.server.to(operatorRoom(ownerId)).emit(SocketEvents.threadUpdated, update);
    } catch (e) {
      this.logger.warn(`chat ${chatId}: list entry not sent: ${(e as Error).message}`);
    }
  }
}
