import { z } from 'zod';
import { zodDto } from '../validation/zod-dto';

/** What an API token may do. `read`: corpus and own-thread reads and the MCP tools; nothing else. */
export const API_TOKEN_SCOPES = ['read'] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

/** Longest lifetime an API token may be given, in days. */
export const API_TOKEN_MAX_DAYS = 365;
/** Lifetime of an API token created without `expiresInDays`, in days. */
export const API_TOKEN_DEFAULT_DAYS = 90;
/** API tokens one operator may hold at once (each is a credential to audit). */
export const API_TOKENS_PER_OPERATOR = 20;

/** `POST /api/auth/tokens`: minted only with the password, so a stolen cookie cannot mint one. */
export class CreateApiTokenDto extends zodDto(
  z.strictObject({
    name: z
      .string()
      .max(100)
      .regex(/\S/, { error: 'must not be empty: say where the token is used, e.g. "VS Code on my laptop"' }),
    expiresInDays: z.number().int().min(1).max(API_TOKEN_MAX_DAYS).optional(),
    /** The signed-in operator's current password. */
    password: z.string().max(1024),
  }),
) {}

/** An API token as `GET /api/auth/tokens` lists it: never the secret, only its first characters. */
export interface ApiTokenView {
  id: string;
  name: string;
  scope: ApiTokenScope;
  /** The secret's first characters (`cc_pat_AbC1`), to recognise a token in a client's settings. */
  prefix: string;
  createdAt: string;
  /** ISO 8601, or null: no expiry (only tokens created before expiry became the default). */
  expiresAt: string | null;
  /** ISO 8601 of the last request it authenticated (to the minute), or null: never used. */
  lastUsedAt: string | null;
}

/** `POST /api/auth/tokens` answers the secret this once; only its SHA-256 is stored. */
export interface CreatedApiToken extends ApiTokenView {
  secret: string;
}

/** A signed-in browser of the operator, as `GET /api/auth/sessions` lists it. */
export interface SessionView {
  id: string;
  /** The `User-Agent` it signed in with ('' when it sent none). */
  userAgent: string;
  /** The client address of its latest request. */
  ip: string;
  createdAt: string;
  /** ISO 8601 of its latest request, to the minute. */
  lastSeenAt: string;
  /** Whether this is the session that asked. */
  current: boolean;
}
