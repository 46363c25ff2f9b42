/**
 * Start-up and shutdown rules shared by the API and agent-worker processes.
 */

/** Prints `message` (a sentence a person can act on, e.g. naming the bad setting) and exits 1. */
export function failStartup(message: string): never {
  console.error(`\n${message}\n`);
  process.exit(1);
}

/** After the first SIGTERM/SIGINT, exits 1 if the graceful close takes longer than `ms` (unref'd timer). */
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
