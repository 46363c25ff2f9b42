import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { Namespace } from 'socket.io';
import { CHAT_NAMESPACE, IMPORT_SOCKET_EVENT, type ImportJobView } from '@corpus-chat/contracts';
import { closeRedis, createRedisConnection, type RedisClient, RedisKeys } from '@corpus-chat/server-core';
import { operatorRoom } from '../auth/socket-auth.service';
import { ApiEnv } from '../config/api-env';

/**
 * Forwards import status changes to the importing operator's sockets as `import:event`, each
 * instance to its own sockets. No replay: a reconnecting client re-reads `GET /api/imports`.
 */
@WebSocketGateway({ namespace: CHAT_NAMESPACE })
export class ImportEventsGateway implements OnGatewayInit, OnApplicationShutdown {
  private readonly logger = new Logger(ImportEventsGateway.name);
  private subscriber?: RedisClient;

  constructor(
    private readonly env: ApiEnv,
    private readonly keys: RedisKeys,
  ) {}

  afterInit(server: Namespace): void {
    const subscriber = createRedisConnection(this.env, 'api:import-events', 'subscriber');
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, message: string) => {
      let parsed: { operatorId?: unknown; job?: ImportJobView };
      try {
        parsed = JSON.parse(message) as typeof parsed;
      } catch {
        this.logger.warn('dropped an import event that is not JSON');
        return;
      }
      if (typeof parsed.operatorId !== 'string' || !parsed.job) return;
      server.local.to(operatorRoom(parsed.operatorId)).emit(IMPORT_SOCKET_EVENT, parsed.job);
    });
    subscriber
      .subscribe(this.keys.importEvents)
      .catch((e: Error) => this.logger.warn(`import events not subscribed: ${e.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.subscriber) await closeRedis(this.subscriber);
  }
}
