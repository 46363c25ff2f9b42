import type { INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import type { Server, ServerOptions } from 'socket.io';
import { closeRedis, createRedisConnection, RedisKeys } from '@corpus-chat/server-core';

/**
 * Socket.IO with the Redis adapter, so room broadcasts (`chat:thread-updated`, disconnecting a
 * disabled operator's sockets) reach sockets on every API instance. Turn events do not go through
 * it: each instance subscribes to the threads its own sockets joined (see `ChatEventRelay`).
 */
export class RedisIoAdapter extends IoAdapter {
  private readonly pub: Redis;
  private readonly sub: Redis;

  constructor(app: INestApplicationContext, redisUrl: string, prefix: string) {
    super(app);
    this.pub = createRedisConnection(redisUrl, 'api:socket.io-pub', 'patient');
    this.sub = createRedisConnection(redisUrl, 'api:socket.io-sub', 'subscriber');
    this.adapterFactory = createAdapter(this.pub, this.sub, { key: new RedisKeys(prefix).socketIoKey });
  }

  private readonly adapterFactory: ReturnType<typeof createAdapter>;

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
