/**
 * `settleBullConnections` against the real Redis behind a proxy that holds Redis' replies back, so
 * a BullMQ queue stays "connecting" for as long as the test says.
 */
import net from 'node:net';
import { Queue } from 'bullmq';
import { testRedisPrefix } from '@corpus-chat/persistence/testing';
import { settleBullConnections } from './redis-connection';

const REDIS = new URL(process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379');

/** A TCP proxy to Redis that forwards requests at once and replies only after `release()`. */
async function holdingProxy(): Promise<{ port: number; release(): void; close(): Promise<void> }> {
  let released = false;
  const waiting: (() => void)[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(REDIS.port || 6379), REDIS.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (released) client.write(chunk);
      else waiting.push(() => client.write(chunk));
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    release() {
      released = true;
      waiting.splice(0).forEach((write) => write());
    },
    close: () => {
      sockets.forEach((s) => s.destroy());
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('settleBullConnections', () => {
  let proxy: Awaited<ReturnType<typeof holdingProxy>>;
  beforeEach(async () => (proxy = await holdingProxy()));
  afterEach(() => proxy.close());

  const queueThroughProxy = () =>
    new Queue('settle-test', {
      connection: { host: '127.0.0.1', port: proxy.port, maxRetriesPerRequest: null },
      prefix: testRedisPrefix(),
    });

  it('waits for a queue still connecting, so closing it afterwards is clean', async () => {
    const queue = queueThroughProxy();
    let settled = false;
    const settling = settleBullConnections([queue], 10_000).then(() => (settled = true));
    // Redis has not answered yet: the queue is connecting and the helper is still waiting.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    proxy.release();
    await settling;
    expect((await queue.client).status).toBe('ready');
    await queue.close();
  });

  it('gives up after the bound without rejecting when Redis never answers', async () => {
    const queue = queueThroughProxy();
    await expect(settleBullConnections([queue], 100)).resolves.toBeUndefined();
    // Let the queue finish connecting before closing it, the case the helper exists for.
    proxy.release();
    await queue.waitUntilReady();
    await queue.close();
  });
});
