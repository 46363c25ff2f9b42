import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  Validate,
} from 'class-validator';
import { Type } from 'class-transformer';
import { ServerEnv, validateEnv } from '@corpus-chat/server-core';
import { TrustProxyConstraint } from './trust-proxy';

/**
 * Settings of operator accounts, sessions and per-operator limits (validated at API start-up;
 * a bad value stops the API naming the variable). Secrets: `JWT_SECRET`, `ADMIN_PASSWORD`.
 */
export class AuthEnv extends ServerEnv {
  /**
   * Milliseconds a request waits for one Redis command (rate limits, sign-in, queue, turn events)
   * before it fails: a Redis that accepts connections but does not answer costs a request this
   * long, then 503 (ioredis `commandTimeout` on the API's command connections).
   */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  REDIS_REQUEST_TIMEOUT_MS = 3000;

  /**
   * Secret that signs session tokens (HS256), at least 32 characters. Required in production; in
   * development and tests it is generated on first start into `${DATA_DIR}/jwt-secret` (mode 600)
   * and reused. All API instances of a deployment must share it. (secret)
   */
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'JWT_SECRET must be at least 32 characters' })
  JWT_SECRET?: string;

  /** Session lifetime in minutes; a session used after half of it has elapsed is renewed. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(24 * 60)
  SESSION_TTL_MINUTES = 30;

  /**
   * Longest a session lasts from sign-in, in hours: renewal never extends a session past it, and
   * the operator then signs in again.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(24 * 30)
  SESSION_MAX_HOURS = 12;

  /**
   * Origins (comma-separated, e.g. `https://chat.example.org`) allowed to send state-changing
   * requests besides the API's own origin. In development the web dev server
   * (`http://localhost:${WEB_PORT}`) is added.
   */
  @IsString()
  PUBLIC_ORIGIN = '';

  /** Port of the web dev server (development only: its origin is allowed). */
  @Type(() => Number)
  @IsInt()
  WEB_PORT = 4200;

  /** Username of the first admin, created at start-up when no enabled admin exists. */
  @Matches(/^[a-zA-Z0-9._-]{2,64}$/, {
    message: 'ADMIN_USERNAME must be 2–64 letters, digits, dots, dashes or underscores',
  })
  ADMIN_USERNAME = 'admin';

  /**
   * Password of that first admin (at least 10 characters). Required in production when no admin
   * exists; in development a random one is generated, printed once and written to
   * `${DATA_DIR}/admin-password.<host>-<port>-<database>.txt` (mode 600). (secret)
   */
  @IsOptional()
  @IsString()
  @MinLength(10, { message: 'ADMIN_PASSWORD must be at least 10 characters' })
  @MaxLength(200)
  ADMIN_PASSWORD?: string;

  /** Folder for development-only generated files (JWT secret, first admin password). */
  @IsString()
  DATA_DIR = '.data';

  /** Mark the session cookie `Secure` (HTTPS only): `auto` means on in production. */
  @IsIn(['auto', 'true', 'false'])
  COOKIE_SECURE: 'auto' | 'true' | 'false' = 'auto';

  /** Messages an operator may post per minute (all API instances together). */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  MESSAGES_PER_MINUTE = 20;

  /** Turns an operator may have queued or running at once; the next message answers 429. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  MAX_ACTIVE_TURNS_PER_OPERATOR = 3;

  /** Requests an operator (or, before sign-in, an IP address) may make per minute to one route. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  REQUESTS_PER_MINUTE = 600;

  /**
   * Proxies in front of the API whose `X-Forwarded-For` is believed, so the sign-in slow-down and
   * the per-IP limits see the real client: empty (none; the TCP peer is the client), a hop count
   * (`1` behind one nginx), or comma-separated proxy IPs/CIDRs (`10.0.0.0/8,loopback`). Trusting a
   * proxy that is not there lets clients choose their IP.
   */
  @Validate(TrustProxyConstraint)
  TRUST_PROXY = '';

  /** Failed sign-ins per username (and 4× that per IP address) before each further try must wait. */
  @Type(() => Number)
  @IsInt()
  @Min(1)
  LOGIN_FREE_ATTEMPTS = 5;
}

/** Reads and validates `AuthEnv` from `env` (default `process.env`); throws `ConfigError`. */
export const loadAuthEnv = (env: Record<string, unknown> = process.env): AuthEnv => validateEnv(AuthEnv, env);

/** Nest token of the validated `AuthEnv`. */
export const AUTH_ENV = Symbol('AUTH_ENV');
