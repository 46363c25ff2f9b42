import { Injectable, Logger } from '@nestjs/common';
import type { Namespace, Socket } from 'socket.io';
import type { AuthenticatedOperator } from '../auth/current-operator';
import { ChatSocketEnv } from './chat-socket.env';

/** The ack (`error`) of an event refused by the per-socket rate limit. */
export const SOCKET_RATE_LIMITED = 'Too many requests: slow down';

/** The `connect_error` message of a handshake refused because the operator holds too many sockets. */
export const tooManySockets = (max: number): string =>
  `Too many connections: at most ${max} open chat sockets per operator`;

/** How many refused events (as a multiple of the burst) a socket may collect before it is disconnected. */
const REFUSALS_BEFORE_DISCONNECT = 5;

/**
 * A token bucket: holds at most `capacity` tokens, refilled at `perSecond`; `take()` spends one if
 * there is one. `now` is a monotonic clock in milliseconds.
 */
export class TokenBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly perSecond: number,
    private readonly capacity: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = capacity;
    this.at = now();
  }

  /** Spends one token; false when none is left. */
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * One event's verdict under `perSecond` with bursts of twice that: `pass`, `refuse`, or `disconnect`
 * after `5 × burst` refusals beyond the refill.
 */
export class SocketEventLimiter {
  private readonly events: TokenBucket;
  private readonly refusals: TokenBucket;

  constructor(perSecond: number, now?: () => number) {
    const burst = 2 * perSecond;
    this.events = new TokenBucket(perSecond, burst, now);
    this.refusals = new TokenBucket(perSecond, REFUSALS_BEFORE_DISCONNECT * burst, now);
  }

  check(): 'pass' | 'refuse' | 'disconnect' {
    if (this.events.take()) return 'pass';
    return this.refusals.take() ? 'refuse' : 'disconnect';
  }
}

/**
 * Per-instance limits of `/chat`: `MAX_SOCKETS_PER_OPERATOR` sockets (the next handshake gets
 * `tooManySockets(max)`), and `SOCKET_EVENTS_PER_SECOND` per socket (refusals acked with
 * `SOCKET_RATE_LIMITED`; a socket that keeps on is disconnected).
 */
@Injectable()
export class SocketLimits {
  private readonly logger = new Logger(SocketLimits.name);
  /** Sockets admitted per operator id on this instance. */
  private readonly admitted = new Map<string, Set<string>>();

  constructor(private readonly env: ChatSocketEnv) {}

  /** Installs both limits on `nsp`; its authentication middleware must be registered before. */
  attach(nsp: Namespace): void {
    nsp.use((socket, next) => {
      const operator = (socket.data as { operator?: AuthenticatedOperator }).operator;
      if (!operator) return next();
      const refusal = this.admit(socket, operator.id);
      next(refusal ? new Error(refusal) : undefined);
    });
    nsp.on('connection', (socket: Socket) => this.limitEvents(socket));
  }

  private admit(socket: Socket, operatorId: string): string | null {
    // A connection that closed while the handshake was being checked never gets a close event again.
    if (socket.client.conn.readyState !== 'open') return 'connection closed';
    let ids = this.admitted.get(operatorId);
    if (!ids) this.admitted.set(operatorId, (ids = new Set()));
    if (ids.size >= this.env.MAX_SOCKETS_PER_OPERATOR) {
      this.logger.warn({
        msg: 'refused a socket over the per-operator limit',
        operatorId,
        max: this.env.MAX_SOCKETS_PER_OPERATOR,
      });
      return tooManySockets(this.env.MAX_SOCKETS_PER_OPERATOR);
    }
    ids.add(socket.id);
    const release = () => {
      ids.delete(socket.id);
      if (!ids.size && this.admitted.get(operatorId) === ids) this.admitted.delete(operatorId);
    };
    // `disconnect` for a connected socket; the connection's close also covers a socket whose
    // connection dropped between this check and the end of its handshake (no `disconnect` then).
    socket.once('disconnect', release);
    socket.client.conn.once('close', release);
    return null;
  }

  private limitEvents(socket: Socket): void {
    const limiter = new SocketEventLimiter(this.env.SOCKET_EVENTS_PER_SECOND);
    let warned = false;
    socket.use((packet, next) => {
      const verdict = limiter.check();
      if (verdict === 'pass') return next();
      const operatorId = (socket.data as { operator?: AuthenticatedOperator }).operator?.id;
      if (verdict === 'disconnect') {
        this.logger.warn({
          msg: 'disconnected a socket that kept sending past its event limit',
          operatorId,
          socketId: socket.id,
        });
        socket.disconnect(true);
        return;
      }
      if (!warned) {
        warned = true;
        this.logger.warn({
          msg: 'socket over its event limit; refusing events',
          operatorId,
          socketId: socket.id,
        });
      }
      const ack: unknown = packet[packet.length - 1];
      if (typeof ack === 'function')
        (ack as (answer: unknown) => void)({ ok: false, error: SOCKET_RATE_LIMITED });
    });
  }
}
