import { ForbiddenException } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { CSRF_HEADER, CSRF_HEADER_VALUE } from '@corpus-chat/contracts';
import type { AuthEnv } from './auth.env';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `text` without trailing slashes. The look-behind starts a match at the first slash of a run only:
 * `/\/+$/` rescans the run from each slash, quadratic in a header an unsigned-in client sends.
 */
const withoutTrailingSlashes = (text: string): string => text.replace(/(?<!\/)\/+$/, '');

/**
 * Origins allowed to make state-changing requests besides the request's own origin:
 * `PUBLIC_ORIGIN` (comma-separated) and, outside production, the web dev server on `WEB_PORT`.
 */
export function allowedOrigins(env: AuthEnv): Set<string> {
  const origins = env.PUBLIC_ORIGIN.split(',')
    .map((o) => withoutTrailingSlashes(o.trim()))
    .filter(Boolean);
  if (env.NODE_ENV !== 'production')
    origins.push(`http://localhost:${env.WEB_PORT}`, `http://127.0.0.1:${env.WEB_PORT}`);
  return new Set(origins.map((o) => o.toLowerCase()));
}

/**
 * Whether `headers` may act for a page: no `Origin`, or the API's own (`protocol://Host`; without
 * `protocol`, as behind a TLS proxy, any scheme with the same host and port) or an `allowed` one.
 */
export function isAllowedOrigin(
  headers: IncomingHttpHeaders,
  allowed: ReadonlySet<string>,
  protocol?: string,
): boolean {
  const origin = headers.origin;
  if (origin === undefined) return true;
  const normalized = withoutTrailingSlashes(origin.toLowerCase());
  if (allowed.has(normalized)) return true;
  const host = headers.host?.toLowerCase();
  if (!host) return false;
  if (protocol !== undefined) return normalized === `${protocol}://${host}`.toLowerCase();
  return normalized === `http://${host}` || normalized === `https://${host}`;
}

/**
 * CSRF defence for the cookie session: a state-changing request needs `X-Requested-With:
 * XMLHttpRequest` and, with an `Origin`, an allowed origin. 403 naming what is missing.
 */
export function assertSameOriginWrite(
  req: { method: string; headers: IncomingHttpHeaders; protocol?: string },
  allowed: ReadonlySet<string>,
): void {
  if (SAFE_METHODS.has(req.method.toUpperCase())) return;
  if (req.headers[CSRF_HEADER.toLowerCase()] !== CSRF_HEADER_VALUE) {
    throw new ForbiddenException(
      `State-changing requests must send the header ${CSRF_HEADER}: ${CSRF_HEADER_VALUE}.`,
    );
  }
  if (!isAllowedOrigin(req.headers, allowed, req.protocol ?? 'http')) {
    const own = req.headers.host
      ? `${req.protocol ?? 'http'}://${req.headers.host}`.toLowerCase()
      : undefined;
    const origin = String(req.headers.origin);
    const accepted = [own, ...allowed].filter(Boolean).join(', ');
    throw new ForbiddenException(
      `Cross-origin request refused: Origin ${origin} is not this API's own origin nor one listed in PUBLIC_ORIGIN (accepted: ${accepted}).`,
    );
  }
}
