import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

/**
 * The prefix of every Redis key prefix and scratch folder a test run creates: `cc-test-<run>-`,
 * where `<run>` is `CC_TEST_RUN_ID` (set by `npm test` for its Jest run, which deletes
 * `cc-test-<run>-*` keys and folders when it ends) or `local` for a bare `jest` call.
 */
export function testRunPrefix(): string {
  return `cc-test-${process.env['CC_TEST_RUN_ID'] || 'local'}-`;
}

/** A fresh Redis key prefix for one test deployment, e.g. `cc-test-<run>-<uuid>`. */
export function testRedisPrefix(): string {
  return `${testRunPrefix()}${crypto.randomUUID()}`;
}

/** A fresh scratch folder path (not created) under the OS temp folder for one test deployment. */
export function testDataDir(): string {
  return path.join(os.tmpdir(), `${testRunPrefix()}${crypto.randomUUID()}`);
}
