import type { IncomingMessage } from 'node:http';
import cookieParser from 'cookie-parser';
import type { CookieOptions } from 'express';
import type { AuthEnv } from './auth.env';

/** Name of the httpOnly cookie that holds the signed session token (JWT). */
export const SESSION_COOKIE = 'cc_session';

/** Options of the session cookie: httpOnly, SameSite=Lax, `Secure` in production (or as configured). */
export function sessionCookieOptions(env: AuthEnv): CookieOptions {
  const secure = env.COOKIE_SECURE === 'auto' ? env.NODE_ENV === 'production' : env.COOKIE_SECURE === 'true';
  return { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: env.SESSION_TTL_MINUTES * 60_000 };
}

const parseCookies = cookieParser();

/**
 * The session token carried by `req` (an Express request or a Socket.IO handshake request), or
 * `undefined`. Parses the `Cookie` header with cookie-parser when no middleware did it yet.
 */
export function sessionTokenOf(
  req: IncomingMessage & { cookies?: Record<string, unknown> },
): string | undefined {
  if (!req.cookies) {
    parseCookies(req as never, {} as never, () => undefined);
  }
  const value = req.cookies?.[SESSION_COOKIE];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
