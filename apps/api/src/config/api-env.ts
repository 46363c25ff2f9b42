import { z } from 'zod';
import { envClass, envInt, validateEnv, webhookEnvSchema } from '@corpus-chat/server-core';
import { authEnvSchema } from '../auth/auth.env';

/** Every setting of the API process: `serverEnvSchema` plus `authEnvSchema`, validated at start-up. */
export const apiEnvSchema = authEnvSchema.extend({
  ...webhookEnvSchema.shape,
  IMPORT_MAX_BYTES: envInt(50 * 1024 * 1024, 1).describe(
    'Largest report file `POST /api/reports/import` accepts, in bytes (default 50 MB); a larger one answers 413 before it is parsed.',
  ),
  IMPORT_QUEUE_PER_OPERATOR: envInt(100, 1).describe(
    'Most imports one operator may have queued or running at once; an upload past it answers 429 ' +
      'saying how many are waiting (nothing is imported).',
  ),
  IMPORT_QUEUED_BYTES_PER_OPERATOR: envInt(1024 * 1024 * 1024, 1).describe(
    "Most bytes of one operator's queued uploads (default 1 GB); an upload past it answers 429 " +
      '(nothing is imported).',
  ),
  DB_ACQUIRE_TIMEOUT_MS: envInt(10_000, 100).describe(
    'Milliseconds a request waits for a free Postgres connection of the pool (`DB_POOL_SIZE`) before it answers 503 "the database is busy": a starved pool refuses instead of hanging every route.',
  ),
  API_PORT: envInt(3000, 0, 65535).describe(
    'TCP port of the HTTP API and the Socket.IO gateway (0 picks a free port).',
  ),
  API_HOST: z
    .string()
    .default('0.0.0.0')
    .describe(
      'Interface the API binds to (`0.0.0.0` for every interface, `127.0.0.1` for this machine only).',
    ),
  JOB_ATTEMPTS: envInt(2, 1, 10).describe(
    'Runs of a turn or import job before it ends failed: a crashed turn worker or a retryable ' +
      'model error starts the turn again from the top, and an import whose attempt threw ' +
      '(database down) is parsed again, until this many attempts ran.',
  ),
  CANCEL_WAIT_MS: envInt(3000, 0).describe(
    'Milliseconds an interrupting message or a thread deletion waits for the running turn to stop (its worker stores the partial answer) before ending the turn itself.',
  ),
  WEB_DIST_DIR: z
    .string()
    .default('')
    .describe(
      "Folder of a production web build (e.g. `dist/web/browser`) to serve on the API's origin; empty serves none (development uses the Angular dev server's proxy instead).",
    ),
});

export class ApiEnv extends envClass(apiEnvSchema) {}

/** Reads and validates `ApiEnv` from `raw` (default `process.env`); throws `ConfigError` naming each bad variable. */
export const loadApiEnv = (raw: Record<string, unknown> = process.env): ApiEnv => validateEnv(ApiEnv, raw);
