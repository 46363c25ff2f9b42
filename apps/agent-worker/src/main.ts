/**
 * The agent-worker process: `node tools/cli/run-ts.mjs apps/agent-worker/src/main.ts` (or
 * `node dist/node/apps/agent-worker/src/main.js`). Validates its settings (a bad one stops it,
 * exit 1, naming the variable, as does a health port already in use), then consumes turn jobs
 * until SIGTERM/SIGINT, which lets running turns finish (up to `SHUTDOWN_TIMEOUT_MS`) before it
 * exits. Start as many as needed.
 */
import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { ConfigError, exitIfShutdownHangs, failStartup, listenErrorMessage } from '@corpus-chat/server-core';
import { AgentModule, loadAgentConfig } from './agent';
import { loadWorkerEnv, type WorkerEnv } from './config/worker-env';
import { WorkerModule } from './worker.module';
import { WORKER_ID } from './turns/turn-executor';

async function main(): Promise<void> {
  let env: WorkerEnv;
  let agentConfig: ReturnType<typeof loadAgentConfig>;
  try {
    env = loadWorkerEnv();
    agentConfig = loadAgentConfig();
  } catch (e) {
    if (e instanceof ConfigError) failStartup(e.message);
    throw e;
  }
  let app: INestApplicationContext;
  try {
    // Creating the context initialises it (bootstrap hooks included).
    app = await NestFactory.createApplicationContext(
      WorkerModule.forRoot({ env, agentModule: AgentModule.forRoot({ config: agentConfig }) }),
      { bufferLogs: true },
    );
  } catch (e) {
    // The health server (WORKER_HEALTH_PORT) is the only thing that listens.
    const message = listenErrorMessage(e, env.WORKER_HEALTH_PORT, 'WORKER_HEALTH_PORT');
    if (message) failStartup(message);
    throw e;
  }
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  exitIfShutdownHangs(env.SHUTDOWN_TIMEOUT_MS + 15_000);
  await app.init();
  console.log(
    `Corpus Chat agent-worker ${app.get<string>(WORKER_ID)} consuming turns (concurrency ${env.WORKER_CONCURRENCY})`,
  );
}

main().catch((e: unknown) => {
  if (e instanceof ConfigError) failStartup(e.message);
  console.error(e);
  process.exit(1);
});
