import { ReplyError } from 'ioredis';
import { metrics } from '../metrics/metrics';

/** Replies that mean "not now" rather than "wrong command" (Redis loading its data, a busy script). */
const TRANSIENT_REPLY = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|CLUSTERDOWN)\b/;

/**
 * Whether `e` says Redis could not be reached (connection refused or lost, retries used up, a
 * command timeout) rather than that the command was wrong: any error but a Redis reply, and the
 * few replies Redis gives while starting or busy. Such a command may succeed when tried again.
 */
export function isRedisUnavailable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e instanceof ReplyError) return TRANSIENT_REPLY.test(e.message);
  return true;
}

/**
 * Runs `command` until it succeeds, retrying while Redis is unreachable (`isRedisUnavailable`)
 * with a back-off of 100 ms doubling to 1 s (ioredis reconnects every ≤ 2 s), as long as the next
 * try starts before `until` (epoch ms). Rejects with the last error when that time is up, or at
 * once with any other error. `onRetry` is told about the first failed try of a run of them.
 */
export async function retryWhileRedisUnavailable<T>(
  command: () => Promise<T>,
  until: number,
  onRetry?: (e: unknown) => void,
): Promise<T> {
  for (let delay = 100, tries = 0; ; delay = Math.min(delay * 2, 1000), tries++) {
    try {
      return await command();
    } catch (e) {
      if (!isRedisUnavailable(e) || Date.now() + delay > until) throw e;
      metrics.redisErrors.inc();
      if (tries === 0) onRetry?.(e);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
