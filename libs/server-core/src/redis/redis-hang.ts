/** Milliseconds a Redis that left a request's command unanswered is treated as hung. */
export const REDIS_HUNG_RECHECK_MS = 5000;

const hungUntil = new Map<string, number>();

/** ioredis's `commandTimeout` error, or `withTimeout`'s. */
const isTimeout = (e: unknown): boolean => e instanceof Error && /timed out/i.test(e.message);

/**
 * Once a command to Redis at `url` timed out (a hung Redis answers nothing), request-path commands
 * fail at once for `REDIS_HUNG_RECHECK_MS`, so a request pays at most one timeout.
 */
export const redisHang = {
  /** Whether a request-path command to `url` timed out within the last `REDIS_HUNG_RECHECK_MS`. */
  isHung(url: string): boolean {
    return Date.now() < (hungUntil.get(url) ?? 0);
  },
  /** Records `e` when it is a command timeout on `url`. */
  note(url: string, e: unknown): void {
    if (isTimeout(e)) hungUntil.set(url, Date.now() + REDIS_HUNG_RECHECK_MS);
  },
  /**
   * Runs a request-path command: rejects at once while `url` is hung, else runs it (bounded by
   * `timeoutMs` when given) and notes a timeout.
   */
  async run<T>(url: string, what: string, call: () => Promise<T>): Promise<T> {
    if (this.isHung(url)) throw new Error(`${what}: Redis did not answer a moment ago`);
    try {
      return await call();
    } catch (e) {
      this.note(url, e);
      throw e;
    }
  },
};
