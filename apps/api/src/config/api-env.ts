import { Type } from 'class-transformer';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { validateEnv } from '@corpus-chat/server-core';
import { AuthEnv } from '../auth/auth.env';

/**
 * Every setting of the API process (validated at start-up; a bad value stops the API naming the
 * variable). Extends the shared `ServerEnv` (database, Redis, prefix, log level, migrations) and the
 * auth layer's `AuthEnv` (sessions, admin, limits).
 */
export class ApiEnv extends AuthEnv {
  /** Largest report file `POST /api/reports/import` accepts, in bytes (default 50 MB); a larger one answers 413 before it is parsed. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  IMPORT_MAX_BYTES = 50 * 1024 * 1024;

  /** TCP port of the HTTP API and the Socket.IO gateway (0 picks a free port). */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(65535)
  API_PORT = 3000;

  /** Interface the API binds to (`0.0.0.0` for every interface, `127.0.0.1` for this machine only). */
  @IsString()
  API_HOST = '0.0.0.0';

  /**
   * Runs of a turn job before it ends in `turn.error`: a crashed worker or a retryable model error
   * starts the turn again from the top until this many attempts ran.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10)
  JOB_ATTEMPTS = 2;

  /**
   * Milliseconds an interrupting message or a thread deletion waits for the running turn to stop
   * (its worker stores the partial answer) before ending the turn itself.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  CANCEL_WAIT_MS = 3000;

  /**
   * Folder of a production web build (e.g. `dist/web/browser`) to serve on the API's origin; empty
   * serves none (development uses the Angular dev server's proxy instead).
   */
  @IsString()
  WEB_DIST_DIR = '';
}

/** Reads and validates `ApiEnv` from `raw` (default `process.env`); throws `ConfigError` naming each bad variable. */
export const loadApiEnv = (raw: Record<string, unknown> = process.env): ApiEnv => validateEnv(ApiEnv, raw);
