import { ReplyError } from 'ioredis';
import { metrics } from '../metrics/metrics';

/** Replies that mean "not now" rather than "wrong command" (Redis loading its data, a busy script). */
const TRANSIENT_REPLY = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|CLUSTERDOWN)\b/;

/** Whether `e` says Redis was unreachable (not a reply, or a starting/busy reply), so a retry may succeed. */
export function isRedisUnavailable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e instanceof ReplyError) return TRANSIENT_REPLY.test(e.message);
  return true;
}

/**
 * Runs `command`, retrying while Redis is unreachable (back-off 100 ms doubling to 1 s) while the
 * next try starts before `until`; rejects with the last error then, or at once with any other.
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
