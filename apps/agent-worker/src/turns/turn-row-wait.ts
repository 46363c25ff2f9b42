/**
 * Pauses (ms) between looks for a turn row that is not committed yet. The API adds the job inside
 * the transaction that stores the turn and commits right after, so a worker that picks the job up
 * at once usually finds the row a millisecond or two later: look again quickly first, then back
 * off to 50 ms.
 */
export const TURN_ROW_POLL_DELAYS_MS: readonly number[] = [1, 2, 4, 8, 16, 32, 50];

/**
 * Calls `find` until it returns a value or `timeoutMs` has passed since the first call, pausing
 * `delays[i]` ms (the last one repeated) between calls. Resolves with the value, or null when the
 * time ran out. Rejects when `find` rejects.
 */
export async function waitForRow<T>(find: () => Promise<T | null>, timeoutMs: number, delays: readonly number[] = TURN_ROW_POLL_DELAYS_MS): Promise<T | null> {
  const until = Date.now() + timeoutMs;
  for (let i = 0; ; i++) {
    const found = await find();
    if (found || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, delays[Math.min(i, delays.length - 1)]));
  }
}
