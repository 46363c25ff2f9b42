import { type INestApplicationContext, Logger } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Server, ServerOptions } from 'socket.io';
import {
  closeRedis,
  createRedisConnection,
  type RedisClient,
  RedisKeys,
  type RedisTarget,
} from '@corpus-chat/server-core';

/**
 * Socket.IO with the Redis adapter, so room broadcasts reach every instance's sockets. Turn events
 * bypass it (`ChatEventRelay`).
 */
export class RedisIoAdapter extends IoAdapter {
  private readonly logger = new Logger(RedisIoAdapter.name);
  private readonly pub: RedisClient;
  private readonly sub: RedisClient;
  private readonly adapterFactory: ReturnType<typeof createAdapter>;

  constructor(app: INestApplicationContext, redis: RedisTarget, prefix: string) {
    super(app);
    this.pub = createRedisConnection(redis, 'api:socket.io-pub', 'patient');
    this.sub = createRedisConnection(redis, 'api:socket.io-sub', 'subscriber');
    // The adapter never awaits its commands: during a Redis outage, or when a connection closes
    // with commands still queued (shutdown while Redis is down), each would reject unhandled and
    // stop the process. A broadcast or subscription that cannot reach Redis is only logged.
    this.logRejections(this.pub, ['publish'], 'cross-instance broadcast not published');
    this.logRejections(
      this.sub,
      ['subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe'],
      'cross-instance subscription not changed',
    );
    this.adapterFactory = createAdapter(this.pub, this.sub, { key: new RedisKeys(prefix).socketIoKey });
  }

  private logRejections(
    client: RedisClient,
    methods: ('publish' | 'subscribe' | 'psubscribe' | 'unsubscribe' | 'punsubscribe')[],
    what: string,
  ): void {
    for (const method of methods) {
      const call = (client[method] as (...args: unknown[]) => Promise<unknown>).bind(client);
      (client as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        const sent = call(...args);
        sent.catch((e: Error) => this.logger.warn(`${what} (${method.toUpperCase()}): ${e.message}`));
        return sent;
      };
    }
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    const server = super.createIOServer(port, options) as Server;
    server.adapter(this.adapterFactory);
    return server;
  }

  override async dispose(): Promise<void> {
    await super.dispose();
    await Promise.all([closeRedis(this.pub), closeRedis(this.sub)]);
  }
}
