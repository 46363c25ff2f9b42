/**
 * The agent-worker process: validates settings (exit 1 naming a bad one or a busy health port),
 * then consumes jobs until SIGTERM/SIGINT, letting running turns finish (≤ `SHUTDOWN_TIMEOUT_MS`).
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import {
  ConfigError,
  exitIfShutdownHangs,
  failStartup,
  listenErrorMessage,
  traceProcess,
} from '@corpus-chat/server-core';
import { AgentModule, loadAgentConfig } from './agent';
import { loadWorkerEnv } from './config/worker-env';
import { createWorkerApp, workerHealthPort } from './health/worker-app';
import { WorkerModule } from './worker.module';
import { WORKER_ID } from './turns/worker-id';

async function main(): Promise<void> {
  traceProcess('corpus-chat-worker');
  // A ConfigError names the bad variable; `main().catch` exits with it.
  const env = loadWorkerEnv();
  const agentConfig = loadAgentConfig();
  let app: INestApplication;
  try {
    app = await createWorkerApp(
      WorkerModule.forRoot({ env, agentModule: AgentModule.forRoot({ config: agentConfig }) }),
      env.WORKER_HEALTH_PORT,
    );
  } catch (e) {
    // The health route (WORKER_HEALTH_PORT) is the only thing that listens.
    const message = listenErrorMessage(e, env.WORKER_HEALTH_PORT, 'WORKER_HEALTH_PORT');
    if (message) failStartup(message);
    throw e;
  }
  app.enableShutdownHooks();
  exitIfShutdownHangs(env.SHUTDOWN_TIMEOUT_MS + 15_000);
  const healthPort = workerHealthPort(app);
  console.log(
    `Corpus Chat agent-worker ${app.get<string>(WORKER_ID)} consuming turns (concurrency ${env.WORKER_CONCURRENCY})` +
      (healthPort === null ? '' : `, health on http://localhost:${healthPort}/health`),
  );
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) failStartup(e.message);
  console.error(e);
  process.exit(1);
});
