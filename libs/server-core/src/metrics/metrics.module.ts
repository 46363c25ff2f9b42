import type { Server } from 'node:http';
import { getQueueToken } from '@nestjs/bullmq';
import {
  type DynamicModule,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bullmq';
import { metricsPort, serveMetrics, watchQueues } from './metrics';

const METRICS_OPTIONS = Symbol('METRICS_OPTIONS');

export interface MetricsOptions {
  /** `METRICS_PORT`: 0 any free port, below 0 no server (the metrics are still recorded). */
  port: number;
  /** BullMQ queues (registered with `BullModule.registerQueue`) whose job counts are reported. */
  queueNames: string[];
}

@Injectable()
class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Metrics');
  private server: Server | undefined;
  private unwatch: (() => void) | undefined;

  constructor(
    @Inject(METRICS_OPTIONS) private readonly options: MetricsOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const queues = this.options.queueNames.map((name) =>
      this.moduleRef.get<Queue>(getQueueToken(name), { strict: false }),
    );
    this.unwatch = watchQueues(queues);
    if (this.options.port < 0) return;
    this.server = await serveMetrics(this.options.port);
    this.logger.log(`Prometheus metrics on :${metricsPort(this.server)}/metrics`);
  }

  /** The port metrics are served on, or null when off. */
  get port(): number | null {
    return this.server ? metricsPort(this.server) : null;
  }

  async onApplicationShutdown(): Promise<void> {
    this.unwatch?.();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Serves the process's metrics (`metricsRegistry`) and reports its queues; see `MetricsOptions`. */
@Module({})
export class MetricsModule {
  static forRoot(options: MetricsOptions): DynamicModule {
    return {
      module: MetricsModule,
      providers: [{ provide: METRICS_OPTIONS, useValue: options }, MetricsServer],
      exports: [MetricsServer],
    };
  }
}

export { MetricsServer };
