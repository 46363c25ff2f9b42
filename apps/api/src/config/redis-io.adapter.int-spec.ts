import { createServer } from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import { testRedisPrefix } from '@corpus-chat/persistence/testing';
import { RedisIoAdapter } from './redis-io.adapter';

/** Lets every settled promise's rejection handlers run, and Node report the unhandled ones. */
const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

describe('RedisIoAdapter with Redis unreachable', () => {
  it('closes without unhandled rejections of the subscriptions it queued', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    const http = createServer();
    try {
      // Nothing listens on port 1: the adapter's SUBSCRIBE/PSUBSCRIBE wait in the offline queue.
      const adapter = new RedisIoAdapter(
        http as unknown as INestApplicationContext,
        'redis://127.0.0.1:1',
        testRedisPrefix(),
      );
      const io = adapter.createIOServer(0);
      io.of('/chat');
      await settle();
      await new Promise<void>((resolve) => io.close(() => resolve()));
      // Closing the connections drops the queued commands ("Connection is closed.").
      await adapter.dispose();
      await settle();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
      http.close();
    }
  });
});
