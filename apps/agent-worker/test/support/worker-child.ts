/**
 * A worker process for crash and shutdown tests: the real `WorkerModule` with the scripted runner
 * (or, with `TEST_AGENT=production` or `builtin`, the real agent: the built-in planner unless a model
 * server is configured), configured by the environment (`testWorkerEnv`). Sends `{type: 'ready', workerId}` over IPC when
 * it consumes jobs, `{type: 'run-ended', turnId, outcome}` when the scripted runner finished a run
 * and `{type: 'stopping'}` when SIGTERM arrived; SIGTERM closes it gracefully
 * (running turns finish first), SIGKILL is the crash.
 *
 *   node tools/cli/run-ts.mjs apps/agent-worker/test/support/worker-child.ts
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { traceProcess } from '@corpus-chat/server-core';
import { loadWorkerEnv } from '../../src/config/worker-env';
import { WORKER_ID } from '../../src/turns/worker-id';
import { WorkerModule } from '../../src/worker.module';
import { ScriptedAgentRunner, ScriptedRunnerModule } from './scripted-runner';

async function main(): Promise<void> {
  traceProcess('corpus-chat-worker');
  const env = loadWorkerEnv();
  // TEST_AGENT=production (or builtin): the real agent (built-in planner unless a model server is
  // configured). Imported only then: the real agent's modules would slow every scripted worker's start-up.
  const agentModule = ['production', 'builtin'].includes(process.env['TEST_AGENT'] ?? '')
    ? await import('../../src/agent').then(({ AgentModule, loadAgentConfig }) =>
        AgentModule.forRoot({ config: loadAgentConfig() }),
      )
    : ScriptedRunnerModule.forRoot(
        new ScriptedAgentRunner((run) =>
          process.send?.({ type: 'run-ended', turnId: run.turnId, outcome: run.outcome }),
        ),
      );
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot({ env, agentModule }), {
    bufferLogs: true,
  });
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
