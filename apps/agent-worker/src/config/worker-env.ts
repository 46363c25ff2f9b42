import { z } from 'zod';
import { envClass, envInt, serverEnvSchema, validateEnv, webhookEnvSchema } from '@corpus-chat/server-core';

const QUEUES_ERROR = { error: 'must list some of `turns`, `imports`, `webhooks`, comma-separated' };

/**
 * Settings of an agent-worker process (validated at start-up; a bad value stops it naming the
 * variable). The agent's own settings (steps, context, model timeouts) are `agentEnvSchema`.
 */
export const workerEnvSchema = serverEnvSchema.extend({
  WORKER_CONCURRENCY: envInt(8, 1, 2000).describe(
    'Turns one process runs at once (a turn mostly waits on the model, so one process holds many: docs/benchmarks.md measures 500 slow turns in one process).',
  ),
  IMPORT_CONCURRENCY: envInt(1, 1, 16).describe(
    'Uploaded report files one process parses at once (`imports` queue). Parsing is CPU-bound and holds a file in memory, so this stays small; turns keep their own `WORKER_CONCURRENCY`.',
  ),
  TEXT_DELTA_COALESCE_MS: envInt(0, 0, 1000).describe(
    'Milliseconds over which text deltas are joined before publishing (0: every delta on its own). The first delta of an answer (and the first after a tool call) goes out at once; the next ones wait at most this long. 16–50 cuts Redis and socket messages several-fold for fast models (docs/benchmarks.md, scenarios 3 and 5).',
  ),
  TURN_TIMEOUT_MS: envInt(300_000, 100).describe(
    "Milliseconds a turn may run before it ends with `turn.error {code: 'TIMEOUT'}` (default 5 minutes).",
  ),
  LOCK_DURATION_MS: envInt(30_000, 1000).describe(
    'Milliseconds of a job lock. The worker renews it every half of this while the turn runs, so a long turn keeps it; a worker that dies stops renewing and its turn is handed to another worker after about this long.',
  ),
  STALLED_INTERVAL_MS: envInt(30_000, 500).describe(
    'Milliseconds between checks for turns whose worker died (their lock expired).',
  ),
  SHUTDOWN_TIMEOUT_MS: envInt(30_000, 0).describe(
    'Milliseconds a SIGTERM waits for running turns to finish; then they are handed back to the queue.',
  ),
  WORKER_HEALTH_PORT: envInt(-1, -1, 65535).describe(
    "Port of the worker's `GET /health` (-1: no HTTP server, 0: any free port).",
  ),
  WORKER_QUEUES: z
    .string()
    .default('turns,imports,webhooks')
    .transform((v) => [...new Set(v.split(',').map((q) => q.trim()))].filter(Boolean))
    .pipe(z.array(z.enum(['turns', 'imports', 'webhooks'], QUEUES_ERROR)).min(1, QUEUES_ERROR))
    .describe(
      'Queues this worker takes jobs from, comma-separated: `turns` (chat turns), `imports` (report ' +
        'files), `webhooks` (webhook deliveries); default all three. Run import workers apart so a ' +
        'large import never competes with chat turns for a process; a worker without `turns` also ' +
        'stores imports at full speed instead of paced. Some worker of a deployment must take ' +
        '`webhooks`.',
    ),
  PUBLIC_ORIGIN: z
    .string()
    .default('')
    .describe(
      "The web app's origin (e.g. `https://chat.example.org`; of a comma-separated list, the first), " +
        'the base of the thread link in webhook deliveries; empty: the link is a path (`/chat/<id>`). ' +
        "Give it the API's value.",
    ),
  ...webhookEnvSchema.shape,
  WORKER_ID: z
    .string()
    .regex(/^[a-zA-Z0-9:._-]{0,100}$/, { error: 'must be up to 100 letters, digits, ":", ".", "_" or "-"' })
    .default('')
    .describe('Name of this worker in events and logs (default `<hostname>:<pid>:<random>`).'),
});

export class WorkerEnv extends envClass(workerEnvSchema) {}

/** Reads and validates `WorkerEnv` from `raw` (default `process.env`); throws `ConfigError` naming each bad variable. */
export const loadWorkerEnv = (raw: Record<string, unknown> = process.env): WorkerEnv =>
  validateEnv(WorkerEnv, raw);
