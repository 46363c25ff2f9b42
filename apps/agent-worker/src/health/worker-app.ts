import type { Server } from 'node:http';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';

/**
 * Creates and starts the worker `module` (`WorkerModule.forRoot(…)`) as a Nest HTTP app whose only
 * route is `GET /health`, listening on `port` (`WORKER_HEALTH_PORT`: 0 any free port; below 0
 * nothing listens and the app is only initialised). Logs go through the module's pino logger.
 * Rejects with the listen error (`code` `EADDRINUSE`, `EACCES`) when the port cannot be opened,
 * after closing the app.
 */
export async function createWorkerApp(module: DynamicModule, port: number): Promise<INestApplication> {
  const app = await NestFactory.create(module, { bufferLogs: true, abortOnError: false });
  app.useLogger(app.get(PinoLogger));
  if (port < 0) {
    await app.init();
    return app;
  }
  try {
    await app.listen(port);
  } catch (e) {
    await app.close();
    throw e;
  }
  return app;
}

/** The port a `createWorkerApp` app listens on, or null when it does not listen. */
export function workerHealthPort(app: INestApplication): number | null {
  const address = (app.getHttpServer() as Server).address();
  return address && typeof address === 'object' ? address.port : null;
}
