import { RequestMethod } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import type { ServerEnv } from '../config/base-env';

/** Paths pino never writes, in every process: credentials, cookies, API keys, message bodies. */
export const BASE_LOG_REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.body',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  'apiKey',
  '*.apiKey',
  'content',
  '*.content',
];

/**
 * `nestjs-pino` settings for process `service`: JSON at `LOG_LEVEL` (pretty in development),
 * secrets and bodies redacted, requests as method, URL and status, health probes not logged.
 */
export function pinoParams(env: ServerEnv, service: string, extraRedact: readonly string[] = []): Params {
  return {
    // Nest 11's router (path-to-regexp 8) needs a named wildcard; nestjs-pino's default '*' only warns and is converted.
    forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
    pinoHttp: {
      name: service,
      level: env.LOG_LEVEL,
      transport:
        env.NODE_ENV === 'development' ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
      redact: { paths: [...new Set([...BASE_LOG_REDACT_PATHS, ...extraRedact])], censor: '[redacted]' },
      serializers: {
        req: (req: { id?: unknown; method?: string; url?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url,
        }),
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/api/health') },
    },
  };
}
