import { DestroyRef, Injectable, InjectionToken, inject, signal } from '@angular/core';
import { io, type ManagerOptions, type Socket, type SocketOptions } from 'socket.io-client';
import {
  CHAT_NAMESPACE,
  IMPORT_SOCKET_EVENT,
  SocketEvents,
  type ImportJobView,
  type ChatEvent,
  type JoinChatAck,
  type JoinChatPayload,
  type ThreadUpdated,
  type TurnActivity,
} from '@corpus-chat/contracts';

/** What the connection indicator shows, straight from the Socket.IO client's own state. */
export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'offline';

/** Creates the Socket.IO client; replaced in tests by a fake. */
export const SOCKET_FACTORY = new InjectionToken<
  (uri: string, opts: Partial<ManagerOptions & SocketOptions>) => Socket
>('SOCKET_FACTORY', { providedIn: 'root', factory: () => io });

/** How long a `chat:join` waits for the gateway's acknowledgement. */
const ACK_TIMEOUT_MS = 10_000;

/**
 * After the server ends the connection (its session expired, or the operator was disabled), the
 * client connects again at once with its current cookie, but not twice within this many ms.
 */
const SERVER_DISCONNECT_RETRY_MS = 10_000;

interface Watch {
  afterSeq: () => string;
  onJoined: (ack: JoinChatAck) => void;
}

/**
 * The one Socket.IO connection to `/chat`; stores register callbacks and expose signals. Watched
 * threads are re-joined after each reconnect from their last seq, so only what was missed is replayed.
 */
@Injectable({ providedIn: 'root' })
export class ChatSocket {
  private readonly factory = inject(SOCKET_FACTORY);
  private socket: Socket | null = null;
  private readonly stateSig = signal<ConnectionState>('idle');
  private readonly errorSig = signal<string | null>(null);
  private readonly eventHandlers = new Set<(event: ChatEvent) => void>();
  private readonly threadUpdatedHandlers = new Set<(update: ThreadUpdated) => void>();
  private readonly activityHandlers = new Set<(activity: TurnActivity) => void>();
  private readonly importHandlers = new Set<(job: ImportJobView) => void>();
  private readonly watches = new Map<string, Watch>();
  private lastServerDisconnect = -Infinity;
  private readonly failuresSig = signal(0);
  private readonly transportSig = signal<string | null>(null);

  /** `connected`, `reconnecting` (the client is retrying), `offline` (it gave up or was refused). */
  readonly state = this.stateSig.asReadonly();
  /** Why the last connection attempt failed (e.g. "unauthorized"), cleared on connect. */
  readonly lastError = this.errorSig.asReadonly();
  /**
   * Connection attempts failed since the last successful connect (0 once connected). A refusal does
   * not always say "unauthorized": a WebSocket upgrade without a valid session is closed by the
   * server before Socket.IO can say why, so callers check the session on any failure.
   */
  readonly connectFailures = this.failuresSig.asReadonly();
  /** Engine.IO transport of the open connection (`websocket` or `polling`); null while not connected. */
  readonly transport = this.transportSig.asReadonly();

  constructor() {
    inject(DestroyRef).onDestroy(() => this.disconnect());
  }

  /** Opens the connection (idempotent). Call once signed in: the handshake carries the session cookie. */
  connect(): void {
    if (this.socket) {
      // Refused or given up earlier (e.g. an expired session): try again with the current cookie.
      if (!this.socket.connected && !this.socket.active) this.reconnect();
      return;
    }
    const socket = this.factory(CHAT_NAMESPACE, {
      withCredentials: true,
      transports: ['websocket', 'polling'],
    });
    this.socket = socket;
    this.stateSig.set('connecting');
    socket.on('connect', () => {
      const engine = socket.io.engine;
      this.transportSig.set(engine?.transport?.name ?? null);
      // Polling upgrades to a WebSocket after the handshake when the network lets it.
      engine?.on('upgrade', (transport: { name: string }) => this.transportSig.set(transport.name));
      this.stateSig.set('connected');
      this.errorSig.set(null);
      this.failuresSig.set(0);
      for (const chatId of this.watches.keys()) void this.join(chatId);
    });
    socket.on('disconnect', (reason: string) => {
      // The server ends a socket when the session its handshake carried expires (the cookie has
      // usually been renewed since) or the operator is disabled: one immediate retry tells which.
      if (
        reason === 'io server disconnect' &&
        Date.now() - this.lastServerDisconnect > SERVER_DISCONNECT_RETRY_MS
      ) {
        this.lastServerDisconnect = Date.now();
        this.stateSig.set('connecting');
        socket.connect();
        return;
      }
      this.transportSig.set(null);
      this.stateSig.set(socket.active ? 'reconnecting' : 'offline');
    });
    socket.on('connect_error', (err: Error) => {
      this.errorSig.set(err.message);
      this.failuresSig.update((n) => n + 1);
      this.stateSig.set(socket.active ? 'reconnecting' : 'offline');
    });
    socket.io.on('reconnect_attempt', () => this.stateSig.set('reconnecting'));
    socket.io.on('reconnect_failed', () => this.stateSig.set('offline'));
    socket.on(SocketEvents.event, (event: ChatEvent) => this.eventHandlers.forEach((h) => h(event)));
    socket.on(SocketEvents.threadUpdated, (update: ThreadUpdated) =>
      this.threadUpdatedHandlers.forEach((h) => h(update)),
    );
    socket.on(SocketEvents.activity, (activity: TurnActivity) =>
      this.activityHandlers.forEach((h) => h(activity)),
    );
    socket.on(IMPORT_SOCKET_EVENT, (job: ImportJobView) => this.importHandlers.forEach((h) => h(job)));
  }

  /** Closes the connection (sign-out). */
  disconnect(): void {
    this.socket?.removeAllListeners();
    this.socket?.io.removeAllListeners();
    this.socket?.disconnect();
    this.socket = null;
    this.transportSig.set(null);
    this.stateSig.set('idle');
  }

  /** Retries now after the client gave up (the indicator's "Reconnect" action). */
  reconnect(): void {
    if (!this.socket) return this.connect();
    if (!this.socket.connected) {
      this.stateSig.set('connecting');
      this.socket.connect();
    }
  }

  /**
   * Follows a thread: joins its room now (when connected) and again after every reconnect, asking
   * for the events after `afterSeq()`. `onJoined` gets each acknowledgement. Returns the function
   * that stops following (leaves the room).
   */
  watch(chatId: string, afterSeq: () => string, onJoined: (ack: JoinChatAck) => void): () => void {
    this.watches.set(chatId, { afterSeq, onJoined });
    if (this.socket?.connected) void this.join(chatId);
    return () => {
      if (this.watches.get(chatId)?.onJoined !== onJoined) return;
      this.watches.delete(chatId);
      this.socket?.emit(SocketEvents.leave, { chatId });
    };
  }

  /** Joins a watched thread again, e.g. to ask for a replay after a missed event. */
  rejoin(chatId: string): void {
    if (this.watches.has(chatId) && this.socket?.connected) void this.join(chatId);
  }

  /** Registers a handler for every `chat:event`; returns the unregister function. */
  onEvent(handler: (event: ChatEvent) => void): () => void {
    this.eventHandlers.add(handler);
    return () => this.eventHandlers.delete(handler);
  }

  /** Calls `handler` with each status change of the operator's imports; returns the unsubscribe. */
  onImportEvent(handler: (job: ImportJobView) => void): () => void {
    this.importHandlers.add(handler);
    return () => this.importHandlers.delete(handler);
  }

  /**
   * Registers a handler for `chat:thread-updated` (any thread of the operator's); returns the unregister
   * function.
   */
  onThreadUpdated(handler: (update: ThreadUpdated) => void): () => void {
    this.threadUpdatedHandlers.add(handler);
    return () => this.threadUpdatedHandlers.delete(handler);
  }

  /**
   * Registers a handler for `chat:activity` (any turn of the operator's); returns the unregister function.
   */
  onActivity(handler: (activity: TurnActivity) => void): () => void {
    this.activityHandlers.add(handler);
    return () => this.activityHandlers.delete(handler);
  }

  private async join(chatId: string): Promise<void> {
    const watch = this.watches.get(chatId);
    const socket = this.socket;
    if (!watch || !socket) return;
    const payload: JoinChatPayload = { chatId, afterSeq: watch.afterSeq() };
    let ack: JoinChatAck;
    try {
      ack = (await socket.timeout(ACK_TIMEOUT_MS).emitWithAck(SocketEvents.join, payload)) as JoinChatAck;
    } catch (err) {
      ack = { ok: false, error: err instanceof Error ? err.message : 'join timed out' };
    }
    if (this.watches.get(chatId) === watch) watch.onJoined(ack);
  }
}
