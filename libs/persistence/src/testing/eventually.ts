/**
 * Polls `probe` every 50 ms until it returns a truthy value, and returns it; fails after `ms`,
 * naming `what` (a function is called then, so the message can show the state at the end).
 */
export async function eventually<T>(
  probe: () => Promise<T> | T,
  ms = 10_000,
  what: string | (() => string) = 'condition',
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
    if (Date.now() > until)
      throw new Error(`${typeof what === 'function' ? what() : what} not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
