import { z } from 'zod';
import { envClass, envInt, serverEnvSchema, validateEnv } from '@corpus-chat/server-core';
import { trustProxyEnv } from './trust-proxy';

/**
 * Settings of operator accounts, sessions and per-operator limits (validated at API start-up;
 * a bad value stops the API naming the variable). Secrets: `JWT_SECRET`, `ADMIN_PASSWORD`.
 */
export const authEnvSchema = serverEnvSchema.extend({
  REDIS_REQUEST_TIMEOUT_MS: envInt(3000, 100).describe(
    "Milliseconds a request waits for one Redis command (rate limits, sign-in, queue, turn events) before it fails: a Redis that accepts connections but does not answer costs a request this long, then 503 (ioredis `commandTimeout` on the API's command connections).",
  ),
  JWT_SECRET: z
    .string()
    .min(32, { error: 'must be at least 32 characters' })
    .optional()
    .describe(
      'Secret that signs session tokens (HS256), at least 32 characters. Required in production; in development and tests it is generated on first start into `${DATA_DIR}/jwt-secret` (mode 600) and reused. All API instances of a deployment must share it. (secret)',
    )
    .meta({ secret: true }),
  SESSION_TTL_MINUTES: envInt(30, 1, 24 * 60).describe(
    'Session lifetime in minutes; a session used after half of it has elapsed is renewed.',
  ),
  SESSION_MAX_HOURS: envInt(12, 1, 24 * 30).describe(
    'Longest a session lasts from sign-in, in hours: renewal never extends a session past it, and the operator then signs in again.',
  ),
  PUBLIC_ORIGIN: z
    .string()
    .default('')
    .describe(
      "Origins (comma-separated, e.g. `https://chat.example.org`) allowed to send state-changing requests besides the API's own origin. In development the web dev server (`http://localhost:${WEB_PORT}`) is added.",
    ),
  WEB_PORT: envInt(4200).describe('Port of the web dev server (development only: its origin is allowed).'),
  ADMIN_USERNAME: z
    .string()
    .regex(/^[a-zA-Z0-9._-]{2,64}$/, { error: 'must be 2–64 letters, digits, dots, dashes or underscores' })
    .default('admin')
    .describe('Username of the first admin, created at start-up when no enabled admin exists.'),
  ADMIN_PASSWORD: z
    .string()
    .min(10, { error: 'must be at least 10 characters' })
    .max(200)
    .optional()
    .describe(
      'Password of that first admin (at least 10 characters). Required in production when no admin exists; in development a random one is generated, printed once and written to `${DATA_DIR}/admin-password.<host>-<port>-<database>.txt` (mode 600). (secret)',
    )
    .meta({ secret: true }),
  DATA_DIR: z
    .string()
    .default('.data')
    .describe('Folder for development-only generated files (JWT secret, first admin password).'),
  COOKIE_SECURE: z
    .enum(['auto', 'true', 'false'])
    .default('auto')
    .describe('Mark the session cookie `Secure` (HTTPS only): `auto` means on in production.'),
  MESSAGES_PER_MINUTE: envInt(20, 1).describe(
    'Messages an operator may post per minute (all API instances together).',
  ),
  MAX_ACTIVE_TURNS_PER_OPERATOR: envInt(3, 1).describe(
    'Turns an operator may have queued or running at once; the next message answers 429.',
  ),
  REQUESTS_PER_MINUTE: envInt(600, 1).describe(
    'Requests an operator (or, before sign-in, an IP address) may make per minute to one route.',
  ),
  TRUST_PROXY: trustProxyEnv.describe(
    'Proxies in front of the API whose `X-Forwarded-For` is believed, so the sign-in slow-down and the per-IP limits see the real client: empty (none; the TCP peer is the client), a hop count (`1` behind one nginx), or comma-separated proxy IPs/CIDRs (`10.0.0.0/8,loopback`). Trusting a proxy that is not there lets clients choose their IP.',
  ),
  PASSWORD_HASH_MEMORY_KIB: envInt(65536, 1024, 4 * 1024 * 1024).describe(
    "Memory of a new argon2id password hash in KiB (argon2's default, 64 MiB, with 3 passes): each sign-in and password change costs about that much memory and its CPU. Existing hashes keep the cost they were made with. The tests use 4096.",
  ),
  LOGIN_FREE_ATTEMPTS: envInt(5, 1).describe(
    'Failed sign-ins per username (and 4× that per IP address) before each further try must wait.',
  ),
});

export class AuthEnv extends envClass(authEnvSchema) {}

/** Reads and validates `AuthEnv` from `env` (default `process.env`); throws `ConfigError`. */
export const loadAuthEnv = (env: Record<string, unknown> = process.env): AuthEnv => validateEnv(AuthEnv, env);

/** Nest token of the validated `AuthEnv`. */
export const AUTH_ENV = Symbol('AUTH_ENV');
