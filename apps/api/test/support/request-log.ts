import crypto from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import request from 'supertest';

/**
 * Resolves once the API child has logged a request for a fresh URL. Its log lines reach stdout in
 * order, so every line of an earlier request is in `output()` by then.
 */
export async function requestLogFlushed(
  baseUrl: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs = 10_000,
): Promise<void> {
  const url = `/api/log-mark-${crypto.randomUUID()}`;
  await request(baseUrl).get(url);
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (!output().includes(url)) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve();
    };
    const timer = setTimeout(() => {
      child.stdout!.off('data', check);
      reject(new Error(`the API did not log ${url} within ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout!.on('data', check);
    check();
  });
}
