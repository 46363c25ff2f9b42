import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Inject, Injectable, Logger, ServiceUnavailableException, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { SocketRefusals } from '@corpus-chat/contracts';
import type Redis from 'ioredis';
import type { Namespace, Server, Socket } from 'socket.io';
import type { AuthenticatedOperator } from './current-operator';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import { AUTH_REDIS, authKey, createAuthRedis } from './auth.redis';
import { AuthService } from './auth.service';
import { sessionTokenOf } from './session-cookie';

/**
 * The answer to a WebSocket upgrade without a valid session (401 "unauthorized"), or whose session
 * could not be checked (503 "unavailable", e.g. the database is down): the upgrade is refused at
 * the HTTP level (RFC 6455 §4.1: any status but 101 fails the connection), so a browser's WebSocket
 * fails at once and socket.io-client reports a `connect_error` without waiting for its connect
 * timeout.
 */
const upgradeRefusal = (status: 401 | 503): string => {
  const [reason, body] = status === 401 ? ['Unauthorized', SocketRefusals.unauthorized] : ['Service Unavailable', SocketRefusals.unavailable];
  return `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};
/** The `connect_error` message of a Socket.IO handshake refused for want of a valid session. */
export const SOCKET_UNAUTHORIZED = SocketRefusals.unauthorized;

/** Room every socket of an operator joins, so all of them can be reached (and disconnected) at once. */
export const operatorRoom = (operatorId: string): string => `operator:${operatorId}`;

/** `socket.data` after the handshake middleware ran. */
export interface AuthenticatedSocketData {
  operator: AuthenticatedOperator;
  /** When the handshake's session token expires (ms since the epoch): the socket is disconnected then. */
  sessionExpiresAt: number;
}

/** setTimeout's longest delay (ms); a later expiry is re-armed when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

type EngineWithUpgrade = {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  opts: { allowRequest?: (req: IncomingMessage, done: (message: string | null, allowed: boolean) => void) => void };
};

/**
 * Authenticates Socket.IO connections with the same session cookie and the same `AuthService` as
 * REST, and disconnects an operator's sockets on every API instance when the operator is disabled
 * (published on a Redis channel all instances subscribe to).
 *
 * The chat gateway calls `attach(server)` once from `afterInit`: from then on an unauthenticated
 * handshake fails with `connect_error` "unauthorized" ("unavailable" when the session cannot be
 * checked, e.g. the database is down), an authenticated socket carries
 * `socket.data.operator` and sits in `operatorRoom(id)`, and no Engine.IO session is opened without
 * a valid session cookie: a WebSocket upgrade without one (a raw WebSocket, or a websocket-first
 * client) is refused with HTTP 401 (503 when the session cannot be checked) and closed, and an
 * HTTP long-polling handshake with HTTP 403 and Engine.IO's error body
 * `{"code":4,"message":"unauthorized"|"unavailable"}` (Engine.IO's `allowRequest`), so an anonymous
 * client cannot hold a polling session open for the 45 s Socket.IO waits for a namespace.
 * A socket lives no longer than the session its handshake carried: when that token expires the
 * server disconnects it (client reason "io server disconnect"), and the client connects again
 * with its current, renewed cookie or is refused.
 */
@Injectable()
export class SocketAuthService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SocketAuthService.name);
  private readonly namespaces = new Set<Namespace>();
  private readonly guardedEngines = new WeakSet<object>();
  private subscriber?: Redis;
  /** Tells this instance's own revocation notices from other instances'. */
  private readonly instanceId = randomUUID();

  constructor(
    private readonly auth: AuthService,
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
    @Inject(AUTH_REDIS) private readonly redis: Redis,
  ) {}

  private get revokedChannel(): string {
    return authKey(this.env, 'operator-revoked');
  }

  async onModuleInit(): Promise<void> {
    this.subscriber = createAuthRedis(this.env, 'subscriber');
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.revokedChannel) return;
      // `<instance> <operator id>`; this instance's own notice was acted on when it was sent.
      const [from, operatorId] = message.includes(' ') ? message.split(' ', 2) : ['', message];
      if (from !== this.instanceId) this.disconnectLocal(operatorId);
    });
    // Queued until Redis answers (ioredis re-subscribes after reconnects); start-up waits at most 5 s.
    const subscribed = this.subscriber.subscribe(this.revokedChannel).catch((e: Error) => {
      this.logger.error({ msg: 'could not subscribe to operator revocations', err: e.message });
    });
    await Promise.race([subscribed, new Promise((r) => setTimeout(r, 5000).unref())]);
  }

  async onModuleDestroy(): Promise<void> {
    this.subscriber?.disconnect();
  }

  /**
   * Protects `target` (the gateway's namespace, or a server whose `/chat` namespace is meant):
   * registers the handshake middleware, the operator room, and on its engine the refusal of
   * unauthenticated WebSocket upgrades (HTTP 401) and polling handshakes (HTTP 403). Idempotent per
   * namespace.
   */
  attach(target: Namespace | Server): void {
    const nsp: Namespace = 'sockets' in target && 'server' in target ? (target as Namespace) : (target as Server).of('/chat');
    if (this.namespaces.has(nsp)) return;
    this.namespaces.add(nsp);
    nsp.use((socket, next) => {
      this.authenticate(socket).then(
        () => next(),
        (e: Error) => {
          // A session that could not be checked (database down) is not a signed-out operator.
          const refusal = e instanceof ServiceUnavailableException ? SocketRefusals.unavailable : SOCKET_UNAUTHORIZED;
          const err = new Error(refusal) as Error & { data?: unknown };
          err.data = { reason: e.message };
          next(err);
        },
      );
    });
    nsp.on('connection', (socket: Socket) => {
      const data = socket.data as Partial<AuthenticatedSocketData>;
      if (data.operator) void socket.join(operatorRoom(data.operator.id));
      if (data.sessionExpiresAt !== undefined) this.disconnectAtExpiry(socket, data.sessionExpiresAt);
    });
    this.guardEngine(nsp.server);
  }

  /** Verifies the handshake's session cookie and sets `socket.data.operator`; throws 401 otherwise. */
  async authenticate(socket: Socket): Promise<AuthenticatedOperator> {
    const session = await this.auth.verifySession(sessionTokenOf(socket.request));
    const data = socket.data as AuthenticatedSocketData;
    data.operator = session.operator;
    data.sessionExpiresAt = session.expiresAt;
    return session.operator;
  }

  /** Disconnects `socket` when its session expires at `expiresAt` (ms since the epoch). */
  private disconnectAtExpiry(socket: Socket, expiresAt: number): void {
    let timer: NodeJS.Timeout;
    const arm = () => {
      // NaN (a token without `exp`, which this API never issues) counts as expired.
      const left = Number.isFinite(expiresAt) ? expiresAt - Date.now() : 0;
      if (left <= 0) {
        this.logger.log({ msg: 'disconnected a socket whose session expired', operatorId: (socket.data as AuthenticatedSocketData).operator?.id });
        socket.disconnect(true);
        return;
      }
      timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
      timer.unref();
    };
    arm();
    socket.once('disconnect', () => clearTimeout(timer));
  }

  /**
   * Disconnects every open socket of `operatorId` on every API instance (used when an admin
   * disables the operator). Resolves once the notice is published.
   */
  async disconnectOperator(operatorId: string): Promise<void> {
    this.disconnectLocal(operatorId);
    try {
      await this.redis.publish(this.revokedChannel, `${this.instanceId} ${operatorId}`);
    } catch (e) {
      // The operator is already refused on every request and handshake (the guard reads Postgres);
      // only sockets already open on other instances stay until their next reconnect.
      this.logger.error({ msg: 'could not publish an operator revocation', operatorId, err: (e as Error).message });
    }
  }

  private disconnectLocal(operatorId: string): void {
    for (const nsp of this.namespaces) nsp.local.in(operatorRoom(operatorId)).disconnectSockets(true);
    this.logger.log({ msg: 'disconnected the sockets of a revoked operator', operatorId });
  }

  /** Answers null for a valid session, else the refusal: 401 (no valid session) or 503 (not checkable). */
  private refusalOf(req: IncomingMessage): Promise<401 | 503 | null> {
    return this.auth.verifySession(sessionTokenOf(req)).then(
      () => null,
      (e: unknown) => (e instanceof ServiceUnavailableException ? 503 : 401),
    );
  }

  /**
   * Refuses Engine.IO sessions without a valid session cookie: wraps the engine's upgrade handler
   * (upgrades are refused with HTTP 401, 503 when the session could not be checked, and the socket
   * is closed) and sets its `allowRequest`, which Engine.IO asks before opening a session over HTTP
   * long-polling (refused with 403 and the message `unauthorized` or `unavailable`).
   */
  private guardEngine(server: Server): void {
    const engine = server.engine as unknown as EngineWithUpgrade;
    if (this.guardedEngines.has(engine)) return;
    this.guardedEngines.add(engine);
    // Upgrades checked by the wrapper below are not checked a second time when Engine.IO asks.
    const checkedUpgrades = new WeakSet<IncomingMessage>();
    engine.opts.allowRequest = (req, done) => {
      if (checkedUpgrades.has(req)) return done(null, true);
      this.refusalOf(req).then(
        (refusal) =>
          refusal === null
            ? done(null, true)
            : done(refusal === 503 ? SocketRefusals.unavailable : SocketRefusals.unauthorized, false),
        (e: Error) => {
          this.logger.error({ msg: 'polling handshake check failed', err: e.message });
          done(SocketRefusals.unavailable, false);
        },
      );
    };
    const original = engine.handleUpgrade.bind(engine);
    engine.handleUpgrade = (req, socket, head) => {
      // Node removes its own error listener before 'upgrade': a client resetting the connection
      // while the session is checked would otherwise be an uncaught error (engine.io does the same).
      const onError = () => socket.destroy();
      socket.on('error', onError);
      this.refusalOf(req)
        .then((refusal) => {
          if (refusal === null) {
            socket.removeListener('error', onError);
            checkedUpgrades.add(req);
            original(req, socket, head);
            return;
          }
          if (socket.writable) socket.write(upgradeRefusal(refusal));
          socket.destroy();
        })
        .catch((e: Error) => {
          this.logger.error({ msg: 'WebSocket upgrade failed', err: e.message });
          socket.destroy();
        });
    };
  }
}
