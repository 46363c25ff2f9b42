import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ForbiddenException, Inject, Injectable, Logger, ServiceUnavailableException } from '@nestjs/common';
import { SocketRefusals } from '@corpus-chat/contracts';
import type { Namespace, Server, Socket } from 'socket.io';
import type { AuthenticatedOperator } from './current-operator';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import { AuthService } from './auth.service';
import { allowedOrigins, isAllowedOrigin } from './csrf';
import { sessionTokenOf } from './session-cookie';

/** Why a handshake is refused: no valid session, a foreign `Origin`, or the session not checkable. */
type Refusal = 401 | 403 | 503;
/** The refusal message of a handshake from a page of another origin. */
export const FOREIGN_ORIGIN = 'forbidden origin';
/** The Engine.IO (polling) refusal message of `refusal`. */
const refusalMessage = (refusal: Refusal): string =>
  refusal === 401
    ? SocketRefusals.unauthorized
    : refusal === 403
      ? FOREIGN_ORIGIN
      : SocketRefusals.unavailable;
/**
 * Answers to a WebSocket upgrade without a valid (401) or checkable (503) session: refused at the
 * HTTP level, so the browser fails at once instead of waiting for a connect timeout.
 */
const upgradeRefusal = (status: Refusal): string => {
  const body = refusalMessage(status);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
  ];
  return `${head.join('\r\n')}\r\n\r\n${body}`;
};

/** Room every socket of an operator joins, so all of them can be reached (and disconnected) at once. */
export const operatorRoom = (operatorId: string): string => `operator:${operatorId}`;

/** Room of the sockets of one session (a signed-in browser), so ending it disconnects those only. */
export const sessionRoom = (sessionId: string): string => `session:${sessionId}`;

/** `socket.data` after the handshake middleware ran. */
export interface AuthenticatedSocketData {
  operator: AuthenticatedOperator;
  /** The session (row of `operator_sessions`) whose cookie the handshake carried. */
  sessionId: string;
  /** When the handshake's session token expires (ms since the epoch): the socket is disconnected then. */
  sessionExpiresAt: number;
}

/** setTimeout's longest delay (ms); a later expiry is re-armed when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

type EngineWithUpgrade = {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  opts: {
    allowRequest?: (req: IncomingMessage, done: (message: string | null, allowed: boolean) => void) => void;
  };
};

/**
 * Authenticates Socket.IO with the REST session cookie and `AuthService`, refuses foreign
 * `Origin`s (403), and disconnects an operator's sockets on every instance (room
 * `operatorRoom(id)`) when their sessions end. No Engine.IO session opens without a valid cookie:
 * WebSocket upgrades get 401 (503 when unverifiable) and polling handshakes 403 with
 * `{"code":4,"message":"unauthorized"|"unavailable"}`, so anonymous clients hold nothing open. A
 * socket is disconnected when its session token expires; the client reconnects with its renewed cookie.
 */
@Injectable()
export class SocketAuthService {
  private readonly logger = new Logger(SocketAuthService.name);
  private readonly namespaces = new Set<Namespace>();
  private readonly guardedEngines = new WeakSet<object>();
  private readonly origins: ReadonlySet<string>;

  constructor(
    private readonly auth: AuthService,
    @Inject(AUTH_ENV) env: AuthEnv,
  ) {
    this.origins = allowedOrigins(env);
  }

  /** Protects `target`'s handshakes, operator room and engine (see the class). Idempotent per namespace. */
  attach(target: Namespace | Server): void {
    const nsp: Namespace =
      'sockets' in target && 'server' in target ? (target as Namespace) : (target as Server).of('/chat');
    if (this.namespaces.has(nsp)) return;
    this.namespaces.add(nsp);
    nsp.use((socket, next) => {
      this.authenticate(socket).then(
        // Joined before the connection event, so no revocation can slip between the check and the room.
        () => {
          const data = socket.data as AuthenticatedSocketData;
          return Promise.resolve(
            socket.join([operatorRoom(data.operator.id), sessionRoom(data.sessionId)]),
          ).then(() => next(), next);
        },
        (e: Error) => {
          // A session that could not be checked (database down) is not a signed-out operator.
          const refusal =
            e instanceof ServiceUnavailableException
              ? SocketRefusals.unavailable
              : e instanceof ForbiddenException
                ? FOREIGN_ORIGIN
                : SocketRefusals.unauthorized;
          const err = new Error(refusal) as Error & { data?: unknown };
          err.data = { reason: e.message };
          next(err);
        },
      );
    });
    nsp.on('connection', (socket: Socket) => {
      const data = socket.data as Partial<AuthenticatedSocketData>;
      if (data.sessionExpiresAt !== undefined) this.disconnectAtExpiry(socket, data.sessionExpiresAt);
    });
    this.guardEngine(nsp.server);
  }

  /**
   * Verifies the handshake's `Origin` and session cookie and sets `socket.data.operator`; throws
   * 403 for a foreign origin, 401 without a valid session.
   */
  async authenticate(socket: Socket): Promise<AuthenticatedOperator> {
    if (!this.originAllowed(socket.request)) throw new ForbiddenException(FOREIGN_ORIGIN);
    const session = await this.auth.verifySession(sessionTokenOf(socket.request));
    const data = socket.data as AuthenticatedSocketData;
    data.operator = session.operator;
    data.sessionId = session.sessionId;
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
        this.logger.log({
          msg: 'disconnected a socket whose session expired',
          operatorId: (socket.data as AuthenticatedSocketData).operator?.id,
        });
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
   * Disconnects every open socket of `operatorId` on every API instance, through the Socket.IO
   * adapter (call after the operator's sessions ended: sign-out, password change, disable).
   */
  disconnectOperator(operatorId: string): void {
    // With the Redis adapter this reaches the other instances too; a broadcast that cannot be
    // published is logged by the adapter, and those sockets are refused at their next handshake.
    for (const nsp of this.namespaces) nsp.in(operatorRoom(operatorId)).disconnectSockets(true);
    this.logger.log({ msg: 'disconnected the sockets of an operator whose sessions ended', operatorId });
  }

  /**
   * Disconnects the open sockets of the sessions `sessionIds` on every API instance (the operator's
   * other sessions keep theirs): call after those sessions ended.
   */
  disconnectSessions(sessionIds: readonly string[]): void {
    if (sessionIds.length === 0) return;
    const rooms = sessionIds.map(sessionRoom);
    for (const nsp of this.namespaces) nsp.in(rooms).disconnectSockets(true);
    this.logger.log({ msg: 'disconnected the sockets of ended sessions', sessions: sessionIds.length });
  }

  /** Whether `req` has no `Origin` (not a browser page) or the API's own or an allowed one. */
  private originAllowed(req: IncomingMessage): boolean {
    return isAllowedOrigin(req.headers, this.origins);
  }

  /**
   * Answers null for an allowed origin with a valid session, else the refusal: 401, 403 (foreign
   * origin) or 503.
   */
  private async refusalOf(req: IncomingMessage): Promise<Refusal | null> {
    if (!this.originAllowed(req)) return 403;
    return this.auth.verifySession(sessionTokenOf(req)).then(
      () => null,
      (e: unknown) => (e instanceof ServiceUnavailableException ? 503 : 401),
    );
  }

  /** Refuses Engine.IO sessions without a valid cookie: upgrades with 401/503, polling with 403. */
  private guardEngine(server: Server): void {
    const engine = server.engine as unknown as EngineWithUpgrade;
    if (this.guardedEngines.has(engine)) return;
    this.guardedEngines.add(engine);
    // Upgrades checked by the wrapper below are not checked a second time when Engine.IO asks.
    const checkedUpgrades = new WeakSet<IncomingMessage>();
    engine.opts.allowRequest = (req, done) => {
      if (checkedUpgrades.has(req)) return done(null, true);
      this.refusalOf(req).then(
        (refusal) => (refusal === null ? done(null, true) : done(refusalMessage(refusal), false)),
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
