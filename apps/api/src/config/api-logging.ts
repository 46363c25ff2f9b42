import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { Options } from 'pino-http';
import { pinoParams } from '@corpus-chat/server-core';
import { LOG_REDACT_PATHS } from '../auth/http-hardening';
import type { ApiEnv } from './api-env';

/** A request's log level by outcome: 5xx `error`, 4xx `warn` (not the server's fault), else `info`. */
export function requestLogLevel(
  _req: IncomingMessage,
  res: ServerResponse,
  error?: Error,
): 'error' | 'warn' | 'info' {
  if (error || res.statusCode >= 500) return 'error';
  if (res.statusCode >= 400) return 'warn';
  return 'info';
}

/** Requests left out of the log: health probes, and the web client's files when the API serves them. */
export function ignoredInRequestLog(env: Pick<ApiEnv, 'WEB_DIST_DIR'>): (req: IncomingMessage) => boolean {
  return (req) => {
    const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
    if (/^\/api\/health(?:[/?]|$)/.test(url)) return true;
    return env.WEB_DIST_DIR !== '' && !url.startsWith('/api/') && url !== '/api';
  };
}

/** The API's `nestjs-pino` settings: `pinoParams` with request lines levelled by outcome, noise left out. */
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
