import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { pinoParams } from '@corpus-chat/server-core';
import { LOG_REDACT_PATHS } from '../auth/http-hardening';
import type { ApiEnv } from './api-env';

/**
 * Level of a request's log line by its outcome: a server error (5xx, or a response that failed)
 * `error`, a client error (4xx) `warn`, anything else `info`. A refused request is not the
 * server's fault, and an operator filtering on `error` should see only what needs fixing here.
 */
export function requestLogLevel(
  _req: IncomingMessage,
  res: ServerResponse,
  error?: Error,
): 'error' | 'warn' | 'info' {
  if (error || res.statusCode >= 500) return 'error';
  if (res.statusCode >= 400) return 'warn';
  return 'info';
}

/**
 * Requests left out of the request log: health probes (`/api/health…`, polled every few seconds),
 * and, when the API serves the web client (`WEB_DIST_DIR` set), everything outside `/api/` (the
 * app's bundles, fonts and index.html), which would otherwise outnumber API calls.
 */
export function ignoredInRequestLog(env: Pick<ApiEnv, 'WEB_DIST_DIR'>): (req: IncomingMessage) => boolean {
  return (req) => {
    const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
    if (/^\/api\/health(?:[/?]|$)/.test(url)) return true;
    return env.WEB_DIST_DIR !== '' && !url.startsWith('/api/') && url !== '/api';
  };
}

/**
 * The API's `nestjs-pino` settings: `pinoParams` (JSON lines at `LOG_LEVEL`, secrets and message
 * bodies redacted, including `LOG_REDACT_PATHS`) with request lines levelled by outcome
 * (`requestLogLevel`) and probes and static files left out (`ignoredInRequestLog`).
 */
export function apiPinoParams(env: ApiEnv): Params {
  const params = pinoParams(env, 'api', LOG_REDACT_PATHS);
  const pinoHttp = params.pinoHttp as Options;
  return {
    ...params,
    pinoHttp: {
      ...pinoHttp,
      customLogLevel: requestLogLevel,
      autoLogging: { ignore: ignoredInRequestLog(env) },
    },
  };
}
