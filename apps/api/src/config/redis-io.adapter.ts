import { type INestApplicationContext, Logger } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { createAdapter } from '@socket.io/redis-adapter';
import type { Redis } from 'ioredis';
import type { Server, ServerOptions } from 'socket.io';
import { closeRedis, createRedisConnection, RedisKeys } from '@corpus-chat/server-core';

/**
 * Socket.IO with the Redis adapter, so room broadcasts (`chat:thread-updated`, disconnecting the
 * sockets of an operator whose sessions ended) reach sockets on every API instance. Turn events do
 * not go through it: each instance subscribes to the threads its own sockets joined (see
 * `ChatEventRelay`).
 */
export class RedisIoAdapter extends IoAdapter {
  private readonly logger = new Logger(RedisIoAdapter.name);
  private readonly pub: Redis;
  private readonly sub: Redis;
  private readonly adapterFactory: ReturnType<typeof createAdapter>;

  constructor(app: INestApplicationContext, redisUrl: string, prefix: string) {
    super(app);
    this.pub = createRedisConnection(redisUrl, 'api:socket.io-pub', 'patient');
    // The adapter never awaits its PUBLISHes; during a Redis outage each would reject unhandled
    // and stop the process. A broadcast that cannot cross instances is only logged.
    const publish = this.pub.publish.bind(this.pub) as (
      channel: string,
      message: string | Buffer,
    ) => Promise<number>;
    this.pub.publish = ((channel: string, message: string | Buffer) => {
      const sent = publish(channel, message);
      sent.catch((e: Error) => this.logger.warn(`cross-instance broadcast not published: ${e.message}`));
      return sent;
    }) as Redis['publish'];
    this.sub = createRedisConnection(redisUrl, 'api:socket.io-sub', 'subscriber');
    this.adapterFactory = createAdapter(this.pub, this.sub, { key: new RedisKeys(prefix).socketIoKey });
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
