import type { Server } from 'node:http';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';

/**
 * Starts the worker `module` as a Nest app serving only `GET /health` on `port` (0: any free port;
 * below 0: none). Rejects with the listen error after closing the app.
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
