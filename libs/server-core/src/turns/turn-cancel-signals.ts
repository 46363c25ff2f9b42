import { Logger } from '@nestjs/common';
import { closeRedis, type RedisClient } from '../redis/redis-connection';
import type { RedisKeys } from '../redis/redis-keys';

/** Seconds a cancel request is remembered (a turn still queued that long is cancelled when it starts). */
export const CANCEL_SIGNAL_TTL_S = 3600;

/**
 * Cancel requests for turns, shared by every API instance and worker through Redis: a key per
 * turn (so a worker starting the turn later still sees it) plus a broadcast on one channel (so the
 * worker running it reacts within milliseconds).
 */
export class TurnCancelSignals {
  private readonly logger = new Logger(TurnCancelSignals.name);
  private readonly watchers = new Map<string, Set<() => void>>();
  private subscriber: RedisClient | null = null;
  private subscribing: Promise<unknown> | null = null;

  /**
   * `redis`: a command connection. `connectSubscriber`: creates the subscriber connection, on the
   * first `watch` only (the API never watches).
   */
  constructor(
    private readonly redis: RedisClient,
    private readonly connectSubscriber: () => RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  /** Asks whoever runs (or will run) turn `turnId` to stop it. Rejects when Redis is unreachable. */
  async request(turnId: string): Promise<void> {
    const results = await this.redis
      .multi()
      .set(this.keys.turnCancel(turnId), '1', 'EX', CANCEL_SIGNAL_TTL_S)
      .publish(this.keys.cancelChannel, turnId)
      .exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('cancel request was not executed');
  }

  /** Whether a cancel was requested for the turn. */
  async isRequested(turnId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.turnCancel(turnId))) === 1;
  }

  /** Deletes the cancel keys of turns whose thread was deleted. Rejects when Redis is unreachable. */
  async forget(turnIds: readonly string[]): Promise<void> {
    if (turnIds.length) await this.redis.del(...turnIds.map((id) => this.keys.turnCancel(id)));
  }

  private ensureSubscribed(): Promise<unknown> {
    if (!this.subscribing) {
      const sub = (this.subscriber = this.connectSubscriber());
      sub.on('message', (_channel: string, turnId: string) => this.fire(turnId));
      // After a reconnect a broadcast may have been missed: look at the keys of watched turns.
      sub.on('ready', () => void this.recheckAll());
      this.subscribing = sub.subscribe(this.keys.cancelChannel).catch((e: Error) => {
        this.subscribing = null;
        throw e;
      });
    }
    return this.subscribing;
  }

  private fire(turnId: string): void {
    const set = this.watchers.get(turnId);
    if (!set) return;
    for (const cb of [...set]) cb();
  }

  private async recheckAll(): Promise<void> {
    const ids = [...this.watchers.keys()];
    if (!ids.length) return;
    try {
      const flags = await Promise.all(ids.map((id) => this.isRequested(id)));
      ids.forEach((id, i) => flags[i] && this.fire(id));
    } catch (e) {
      this.logger.warn(`re-checking cancel keys after reconnect failed: ${(e as Error).message}`);
    }
  }

  /**
   * Calls `onCancel` once when a cancel is requested for `turnId`, including one requested before
   * this call. Resolves (once subscribed) with a function that stops watching.
   */
  async watch(turnId: string, onCancel: () => void): Promise<() => void> {
    let fired = false;
    const once = () => {
      if (fired) return;
      fired = true;
      onCancel();
    };
    let set = this.watchers.get(turnId);
    if (!set) this.watchers.set(turnId, (set = new Set()));
    set.add(once);
    const dispose = () => {
      const current = this.watchers.get(turnId);
      current?.delete(once);
      if (current && !current.size) this.watchers.delete(turnId);
    };
    try {
      await this.ensureSubscribed();
      if (await this.isRequested(turnId)) once();
    } catch (e) {
      dispose();
      throw e;
    }
    return dispose;
  }

  /** Closes the subscriber connection (if one was opened). */
  async close(): Promise<void> {
    this.watchers.clear();
    const sub = this.subscriber;
    this.subscriber = null;
    this.subscribing = null;
    if (sub) await closeRedis(sub);
  }
}
