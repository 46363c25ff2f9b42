import { type ArgumentMetadata, BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import cookieParser from 'cookie-parser';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { BASE_LOG_REDACT_PATHS } from '@corpus-chat/server-core';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import { AuthService } from './auth.service';
import { sessionTokenOf } from './session-cookie';

/** Largest JSON body of ordinary routes; larger ones answer 413 before being read whole. */
export const JSON_BODY_LIMIT = '1mb';

/** Paths pino must never write in the API: `BASE_LOG_REDACT_PATHS` plus session tokens. */
export const LOG_REDACT_PATHS = [...BASE_LOG_REDACT_PATHS, 'token', '*.token'];

/**
 * HTTP hardening, before routes and Swagger: helmet (own-origin CSP plus Angular's inline styles),
 * cookies, 1 MB bodies (413), admin-only `/api/docs*`, no CORS (same-origin client).
 */
export function applyHttpHardening(app: NestExpressApplication, options: { docsPath?: string } = {}): void {
  const env = app.get<AuthEnv>(AUTH_ENV);
  const production = env.NODE_ENV === 'production';
  app.use(
    helmet({
      contentSecurityPolicy: {
        useDefaults: true,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'", "'unsafe-inline'"],
          imgSrc: ["'self'", 'data:'],
          fontSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          objectSrc: ["'none'"],
          frameAncestors: ["'none'"],
          upgradeInsecureRequests: production ? [] : null,
        },
      },
      strictTransportSecurity: production,
    }),
  );
  app.use(cookieParser());
  app.useBodyParser('json', { limit: JSON_BODY_LIMIT });
  app.useBodyParser('urlencoded', { limit: JSON_BODY_LIMIT, extended: false });
  const docs = options.docsPath ?? '/api/docs';
  // Swagger serves the UI under `docs` and the document itself at `docs-json` / `docs-yaml`.
  app.use([docs, `${docs}-json`, `${docs}-yaml`], adminOnlyMiddleware(app.get(AuthService)));
}

/**
 * Express middleware for routes outside Nest's router (Swagger UI and its JSON): 401 without a
 * valid session, 403 for a non-admin.
 */
export function adminOnlyMiddleware(auth: AuthService) {
  return (req: Request, res: Response, next: NextFunction): void => {
    auth.verifySession(sessionTokenOf(req)).then(
      (session) => {
        if (session.operator.role === 'admin') return next();
        res
          .status(403)
          .json({ statusCode: 403, error: 'Forbidden', message: 'Only an admin may read the API docs.' });
      },
      (e: { getStatus?: () => number; message: string }) => {
        const status = typeof e.getStatus === 'function' ? e.getStatus() : 500;
        if (status !== 401) return next(e);
        res.status(401).json({ statusCode: 401, error: 'Unauthorized', message: e.message });
      },
    );
  };
}

/** Whether `value` (any JSON-like value, walked to `depth`) holds a string with a NUL character. */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => containsNul(v, depth + 1));
  return Object.entries(value as Record<string, unknown>).some(
    ([k, v]) => k.includes('\u0000') || containsNul(v, depth + 1),
  );
}

/** Global pipe: 400 for any body, query or parameter holding NUL, which Postgres cannot store. */
@Injectable()
export class RejectNulPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'custom' && containsNul(value)) {
      throw new BadRequestException(`${metadata.data ?? metadata.type} must not contain NUL characters.`);
    }
    return value;
  }
}
