/**
 * A worker process for crash and shutdown tests: the real `WorkerModule` with the scripted runner
 * (the real agent with `TEST_AGENT=builtin`), configured by the environment (`testWorkerEnv`).
 * Sends `{type: 'ready', workerId}` over IPC when it consumes jobs, `{type: 'run-ended', turnId, outcome}` when the scripted runner finished a run
 * and `{type: 'stopping'}` when SIGTERM arrived; SIGTERM closes it gracefully
 * (running turns finish first), SIGKILL is the crash.
 *
 *   node tools/cli/run-ts.mjs apps/agent-worker/test/support/worker-child.ts
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { AgentModule } from '../../src/agent';
import { loadWorkerEnv } from '../../src/config/worker-env';
import { WORKER_ID } from '../../src/turns/turn-executor';
import { WorkerModule } from '../../src/worker.module';
import { ScriptedAgentRunner, ScriptedRunnerModule } from './scripted-runner';

async function main(): Promise<void> {
  const env = loadWorkerEnv();
  const app = await NestFactory.createApplicationContext(
    WorkerModule.forRoot({
      env,
      // TEST_AGENT=builtin: the real agent (the planner with no model configured), for tests of its answers.
      agentModule:
        process.env['TEST_AGENT'] === 'builtin'
          ? AgentModule.forRoot()
          : ScriptedRunnerModule.forRoot(new ScriptedAgentRunner((run) => process.send?.({ type: 'run-ended', turnId: run.turnId, outcome: run.outcome }))),
    }),
    { bufferLogs: true },
  );
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  // Lets a test know the shutdown began before it releases a held turn.
  process.once('SIGTERM', () => process.send?.({ type: 'stopping' }));
  await app.init();
  process.send?.({ type: 'ready', workerId: app.get<string>(WORKER_ID) });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
