import { metrics } from '../metrics/metrics';

/** Socket errors of a Postgres connection that could not be made or was lost. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

type PgLike = { code?: unknown; message?: unknown; driverError?: PgLike; cause?: PgLike };

/**
 * Whether `e` says Postgres is unreachable (socket error, node-postgres connection messages,
 * SQLSTATE class 08 or 57P), so a retry may succeed.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let c = e as PgLike | undefined, depth = 0; c && depth < 4; c = c.driverError ?? c.cause, depth++) {
    const code = typeof c.code === 'string' ? c.code : '';
    if (SOCKET_CODES.has(code) || code.startsWith('08') || code.startsWith('57P')) return true;
    const message = typeof c.message === 'string' ? c.message : '';
    if (/Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED/i.test(message))
      return true;
  }
  return false;
}

/**
 * Runs `store`, retrying while Postgres is unreachable (back-off 200 ms doubling to 5 s) while the
 * next try starts before `until`; rejects with the last error then, or at once with any other.
 */
export async function retryWhileDatabaseUnavailable<T>(
  store: () => Promise<T>,
  until: number,
  onRetry?: (e: unknown, delayMs: number) => void,
): Promise<T> {
  for (let delay = 200; ; delay = Math.min(delay * 2, 5000)) {
    try {
      return await store();
    } catch (e) {
      if (!isDatabaseUnavailable(e)) throw e;
      metrics.postgresErrors.inc();
      if (Date.now() + delay > until) throw e;
      onRetry?.(e, delay);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}
