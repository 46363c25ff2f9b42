import { createHash, randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/redis-connection';
import { redisRoot } from '../redis/redis-keys';
import { sleep } from '../process/sleep';

/**
 * Grants a slot (a lease in `holders`) when fewer than `max` are held and the caller is among the
 * first waiters, oldest first; drops expired leases and waiters whose heartbeat key has expired (a
 * worker that died while waiting). Waiters are ordered by a ticket counter, not the clock, so two
 * arriving in the same millisecond keep their order. Returns 0 when granted, else the caller's place in line (1: next).
 * Every key shares the deployment's hash tag (`redisRoot`), so it runs on Redis Cluster.
 */
const ACQUIRE = `
local holders, waiters, tickets = KEYS[1], KEYS[2], KEYS[3]
local now, lease, max, id = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local heartbeat, heartbeatMs = ARGV[5], ARGV[6]
redis.call('ZREMRANGEBYSCORE', holders, '-inf', now)
if not redis.call('ZSCORE', waiters, id) then
  redis.call('ZADD', waiters, redis.call('INCR', tickets), id)
end
redis.call('SET', heartbeat .. id, '1', 'PX', heartbeatMs)
for _, w in ipairs(redis.call('ZRANGE', waiters, 0, 99)) do
  if redis.call('EXISTS', heartbeat .. w) == 0 then redis.call('ZREM', waiters, w) end
end
local free = max - redis.call('ZCARD', holders)
local rank = redis.call('ZRANK', waiters, id)
if free > 0 and rank < free then
  redis.call('ZREM', waiters, id)
  redis.call('DEL', heartbeat .. id)
  redis.call('ZADD', holders, now + lease, id)
  return 0
end
return rank + 1 - math.max(free, 0)
`;

export interface ModelSlotOptions {
  /** Requests all workers together may have open at one model server (`MODEL_MAX_CONCURRENT`; 0: no cap). */
  max: number;
  /** A lease not renewed for this long is taken back (its worker died). Default 30 s. */
  leaseMs?: number;
  /** How often a waiter asks again. Default 100 ms. */
  pollMs?: number;
}

/**
 * A cap on the requests that every worker together has open at one model server, kept in Redis: a
 * semaphore with leases (renewed while the request runs, taken back when a worker dies) and a
 * first-come line of waiters whose place is reported while they wait.
 */
export class ModelSlots {
  private readonly leaseMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly redis: RedisClient,
    /** Key prefix, e.g. `cc` (`REDIS_PREFIX`). */
    private readonly prefix: string,
    private readonly options: ModelSlotOptions,
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollMs = options.pollMs ?? 100;
  }

  /** Whether requests are capped at all. */
  get enabled(): boolean {
    return this.options.max > 0;
  }

  /**
   * Waits for a slot at the server of `baseUrl`, telling `onWait` the place in line whenever it
   * changes (awaited); resolves with the function that gives the slot back. Rejects with `signal`'s reason
   * when it aborts first (leaving the line).
   */
  async acquire(
    baseUrl: string,
    signal: AbortSignal,
    onWait?: (position: number) => Promise<void> | void,
  ): Promise<() => Promise<void>> {
    if (!this.enabled) return async () => undefined;
    const server = createHash('sha256').update(new URL(baseUrl).origin).digest('hex').slice(0, 16);
    const base = `${redisRoot(this.prefix)}:model-slots:${server}`;
    const [holders, waiters, tickets] = [`${base}:holders`, `${base}:waiters`, `${base}:tickets`];
    const heartbeat = `${base}:waiting:`;
    const id = randomUUID();
    let shown = 0;
    try {
      for (;;) {
        signal.throwIfAborted();
        const place = Number(
          await this.redis.eval(
            ACQUIRE,
            3,
            holders,
            waiters,
            tickets,
            Date.now(),
            this.leaseMs,
            this.options.max,
            id,
            heartbeat,
            this.pollMs * 5,
          ),
        );
        if (place === 0) break;
        if (place !== shown) await onWait?.((shown = place));
        await sleep(this.pollMs, signal);
      }
    } catch (e) {
      await this.redis.zrem(waiters, id).catch(() => undefined);
      throw e;
    }
    const renew = setInterval(() => {
      this.redis.zadd(holders, 'XX', Date.now() + this.leaseMs, id).catch(() => undefined);
    }, this.leaseMs / 3);
    renew.unref();
    return async () => {
      clearInterval(renew);
      await this.redis.zrem(holders, id).catch(() => undefined);
    };
  }
}
