import http from 'node:http';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { REDIS_CLIENT, withTimeout } from '@corpus-chat/server-core';
import { WorkerEnv } from '../config/worker-env';
import { TurnExecutor, WORKER_ID } from '../turns/turn-executor';

/**
 * `GET /health` of a worker on `WORKER_HEALTH_PORT` (off at -1): 200 `{status: 'ok', …}` when
 * Postgres and Redis answer, else 503 `{status: 'error', …}`; also the worker id and its running
 * turns. For container health checks; nothing else is served. A port that cannot be opened
 * (`EADDRINUSE`…) rejects `onApplicationBootstrap`, so the worker does not start.
 */
@Injectable()
export class WorkerHealthServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WorkerHealthServer.name);
  private server?: http.Server;

  constructor(
    private readonly env: WorkerEnv,
    private readonly dataSource: DataSource,
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    @Inject(WORKER_ID) private readonly workerId: string,
    private readonly executor: TurnExecutor,
  ) {}

  /** The port it listens on (after bootstrap), or null when disabled. */
  get port(): number | null {
    const address = this.server?.address();
    return address && typeof address === 'object' ? address.port : null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.env.WORKER_HEALTH_PORT < 0) return;
    this.server = http.createServer((req, res) => {
      if (req.method !== 'GET' || req.url !== '/health') {
        res.writeHead(404).end();
        return;
      }
      void this.status().then((body) => {
        res.writeHead(body.status === 'ok' ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      });
    });
    const server = this.server;
    // A port in use fails the start (main.ts names the setting) instead of an uncaught 'error' event.
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.env.WORKER_HEALTH_PORT, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.logger.log(`health on http://localhost:${this.port}/health`);
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) => (this.server?.listening ? this.server.close(() => resolve()) : resolve()));
  }

  private async status() {
    const check = async (probe: () => Promise<unknown>) =>
      withTimeout(probe(), 1000, 'probe').then(
        () => ({ status: 'up' as const }),
        (e: Error) => ({ status: 'down' as const, message: e.message }),
      );
    const [postgres, redis] = await Promise.all([
      check(() => this.dataSource.query('SELECT 1')),
      check(() => this.redis.ping()),
    ]);
    const ok = postgres.status === 'up' && redis.status === 'up';
    return {
      status: ok ? 'ok' : 'error',
      workerId: this.workerId,
      runningTurns: this.executor.runningTurns,
      details: { postgres, redis },
    };
  }
}
