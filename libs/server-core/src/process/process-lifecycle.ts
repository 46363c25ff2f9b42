/**
 * Start-up and shutdown rules shared by the API and agent-worker processes.
 */

/** Prints `message` (a sentence a person can act on, e.g. naming the bad setting) and exits 1. */
export function failStartup(message: string): never {
  console.error(`\n${message}\n`);
  process.exit(1);
}

/**
 * After the first SIGTERM/SIGINT, exits with code 1 if the graceful close (Nest's shutdown hooks:
 * running turns, open sockets) takes longer than `ms` milliseconds, e.g. while Redis is unreachable.
 * The timer is unref'd, so a close that finishes in time exits normally.
 */
export function exitIfShutdownHangs(ms: number): void {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      setTimeout(() => {
        console.error(`shutdown did not finish within ${ms} ms; exiting`);
        process.exit(1);
      }, ms).unref();
    });
  }
}
