import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkModelServer } from './model-server-check';

/** A port on 127.0.0.1 where nothing listens (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = http.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('checkModelServer failure wording', () => {
  it('names the URL and says the connection was refused when nothing listens', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}/v1`;
    const r = await checkModelServer({ baseUrl, model: 'm', apiKey: null }, { listTimeoutMs: 3000, completionTimeoutMs: 3000 });
    expect(r.ok).toBe(false);
    expect(r.checks.map((c) => c.detail)).toEqual([
      `Listing the models failed: could not connect to ${baseUrl}: connection refused: nothing listens on that port (ECONNREFUSED)`,
      `A one-token completion with 'm' failed: could not connect to ${baseUrl}: connection refused: nothing listens on that port (ECONNREFUSED)`,
    ]);
  });

  it('explains a port that fetch refuses to use (port 9) instead of "bad port"', async () => {
    const baseUrl = 'http://127.0.0.1:9/v1';
    const r = await checkModelServer({ baseUrl, model: 'm', apiKey: null }, { listTimeoutMs: 3000, completionTimeoutMs: 3000 });
    expect(r.checks[0]!.detail).toBe(
      `Listing the models failed: could not connect to ${baseUrl}: port 9 is blocked for HTTP requests (the fetch standard reserves it for another protocol): use another port`,
    );
    expect(r.checks[0]!.detail).not.toContain('(bad port)');
  });

  it('says an unknown host name was not found', async () => {
    const baseUrl = 'http://no-such-host.invalid/v1';
    const r = await checkModelServer({ baseUrl, model: 'm', apiKey: null }, { listTimeoutMs: 5000, completionTimeoutMs: 5000 });
    expect(r.checks[0]!.detail).toMatch(new RegExp(`^Listing the models failed: could not connect to ${baseUrl.replace(/[./]/g, '\\$&')}: the host name (was not found \\(ENOTFOUND\\)|could not be looked up)`));
  });

  it('does not wait for a completion from a server that did not answer the model list in time', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const silent = http.createServer(() => undefined); // accepts, never answers
    silent.on('connection', (s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const baseUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
    try {
      const started = Date.now();
      const r = await checkModelServer({ baseUrl, model: 'm', apiKey: null }, { listTimeoutMs: 300, completionTimeoutMs: 10_000 });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(r.ok).toBe(false);
      expect(r.checks.map((c) => c.name)).toEqual(['models', 'completion']);
      expect(r.checks[0]!.detail).toMatch(/^Listing the models failed: /);
      expect(r.checks[1]!.detail).toBe(`Not tried: ${baseUrl} did not answer the model list in time, so a completion would not be answered either.`);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });
});
