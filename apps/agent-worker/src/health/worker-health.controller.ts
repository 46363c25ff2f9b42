import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import {
  type HealthCheckResult,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { REDIS_CLIENT, type RedisClient, withTimeout } from '@corpus-chat/server-core';
import { RunningTurns } from '../turns/running-turns';
import { WORKER_ID } from '../turns/worker-id';

/** Terminus' answer (`status`, `info`, `error`, `details` per dependency) plus who is answering. */
export type WorkerHealth = HealthCheckResult & { workerId: string; runningTurns: number };

/** `GET /health`: 200 when Postgres and Redis answer within a second, else 503 naming the failure. */
@Controller('health')
export class WorkerHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly indicator: HealthIndicatorService,
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient,
    @Inject(WORKER_ID) private readonly workerId: string,
    private readonly running: RunningTurns,
  ) {}

  @Get()
  async check(): Promise<WorkerHealth> {
    const result = await this.health
      .check([() => this.db.pingCheck('postgres', { timeout: 1000 }), () => this.redisCheck()])
      .catch((e: unknown) => {
        // Terminus refuses a failed check with a 503 carrying the same result: add the worker to it.
        if (!(e instanceof ServiceUnavailableException)) throw e;
        throw new ServiceUnavailableException(this.withWorker(e.getResponse() as HealthCheckResult));
      });
    return this.withWorker(result);
  }

  private async redisCheck() {
    const check = this.indicator.check('redis');
    return withTimeout(this.redis.ping(), 1000, 'PING').then(
      () => check.up(),
      (e: Error) => check.down({ message: e.message }),
    );
  }

  private withWorker(result: HealthCheckResult): WorkerHealth {
    return { ...result, workerId: this.workerId, runningTurns: this.running.size };
  }
}
