/**
 * Resolves after `ms`, or rejects with `signal`'s reason as soon as it aborts (at once when it
 * already has). Unlike `timers/promises`' setTimeout, the caller gets the abort's own reason
 * (a turn's cancel or timeout), not a generic AbortError.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
