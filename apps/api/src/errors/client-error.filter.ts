import { STATUS_CODES } from 'node:http';
import { type ArgumentsHost, Catch, HttpException, Logger } from '@nestjs/common';
import { isDatabaseUnavailable } from '@corpus-chat/server-core';
import { databaseUnavailable } from './database-unavailable';
import { BaseExceptionFilter } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';

/** The limits a refusal names. */
export interface ClientErrorLimits {
  /** Largest imported report file, in bytes (`IMPORT_MAX_BYTES`). */
  importMaxBytes: number;
}

/** An error of the `http-errors` package (what body-parser, raw-body and serve-static pass to `next(err)`). */
interface HttpError extends Error {
  status: number;
  /** Whether the message may be shown to the client (false for 5xx). */
  expose?: boolean;
  /** body-parser's kind of failure, e.g. `entity.too.large`, `request.aborted`, `charset.unsupported`. */
  type?: string;
  /** For `entity.too.large`: the declared or received length and the limit, in bytes. */
  length?: number;
  limit?: number;
}

function clientHttpError(e: unknown): HttpError | null {
  if (!(e instanceof Error) || e instanceof HttpException) return null;
  const status = (e as Partial<HttpError>).status;
  return typeof status === 'number' && status >= 400 && status < 500 ? (e as HttpError) : null;
}

/** `52428800` → `50 MB`, `1572864` → `1.5 MB`, `204800` → `200 KB` (binary units, as body-parser's `1mb`). */
export function describeBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const mb = bytes / (1024 * 1024);
  if (mb >= 1) return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
  const kb = bytes / 1024;
  return `${Number.isInteger(kb) ? kb : kb.toFixed(1)} KB`;
}

/** Answers an upload over a limit: 413 with `error` (`TOO_LARGE`…) and a message naming the limit, plus `extra` fields. */
export function sendTooLarge(
  host: ArgumentsHost,
  error: string,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  host
    .switchToHttp()
    .getResponse<Response>()
    .status(413)
    .json({ statusCode: 413, error, message, ...extra });
}

/** The `ArgumentsHost` of an HTTP request outside Nest's router (an Express error handler). */
function httpHost(req: Request, res: Response, next: NextFunction): ArgumentsHost {
  const args = [req, res, next];
  const http: ReturnType<ArgumentsHost['switchToHttp']> = {
    getRequest: <T>() => req as T,
    getResponse: <T>() => res as T,
    getNext: <T>() => next as T,
  };
  return {
    getArgs: <T extends unknown[]>() => args as T,
    getArgByIndex: <T>(index: number) => args[index] as T,
    getType: <T extends string>() => 'http' as T,
    switchToHttp: () => http,
    switchToRpc: () => {
      throw new Error('not an RPC context');
    },
    switchToWs: () => {
      throw new Error('not a WebSocket context');
    },
  };
}

/**
 * Global exception filter: a 4xx `http-errors` error (body parsers, static files) is answered like
 * a Nest exception with an actionable message and logged at warn without a stack; no pooled or
 * reachable Postgres is 503. Everything else goes to Nest's own handling.
 */
@Catch()
export class ClientErrorFilter extends BaseExceptionFilter {
  private readonly logger = new Logger('HttpErrors');

  constructor(
    applicationRef: ConstructorParameters<typeof BaseExceptionFilter>[0],
    private readonly limits: ClientErrorLimits,
  ) {
    super(applicationRef);
  }

  /**
   * The same for errors raised before Nest's router (body parsers, the docs guard). Register it
   * right after them: `ServeStaticModule`'s error middleware would answer `/api` errors with 404.
   */
  expressErrorHandler(): (err: unknown, req: Request, res: Response, next: NextFunction) => void {
    return (err, req, res, next) => this.catch(err, httpHost(req, res, next));
  }

  override catch(exception: unknown, host: ArgumentsHost): void {
    if (
      host.getType() === 'http' &&
      !(exception instanceof HttpException) &&
      isDatabaseUnavailable(exception)
    )
      return this.databaseUnavailable(exception, host);
    const error = host.getType() === 'http' ? clientHttpError(exception) : null;
    if (!error) return super.catch(exception, host);
    const req = host.switchToHttp().getRequest<Request>();
    const parseFailed = error.type === 'entity.parse.failed';
    const message = this.messageOf(error);
    // Never the parser's message in the log: it may quote the body (passwords, operators' messages).
    this.logger.warn(
      {
        status: error.status,
        type: error.type,
        method: req.method,
        url: req.originalUrl,
        length: error.length,
        limit: error.limit,
      },
      `request refused: ${parseFailed ? 'Request body is not valid JSON' : message}`,
    );
    super.catch(
      new HttpException(
        { statusCode: error.status, error: STATUS_CODES[error.status] ?? 'Error', message },
        error.status,
      ),
      host,
    );
  }

  /** 503 for a request that found no free pooled connection in time, or Postgres unreachable. */
  private databaseUnavailable(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const refusal = databaseUnavailable(exception);
    this.logger.warn(
      { method: req.method, url: req.originalUrl, err: String(exception) },
      `request refused: ${refusal.message}`,
    );
    super.catch(refusal, host);
  }

  private messageOf(error: HttpError): string {
    if (error.type === 'entity.too.large') {
      const limit = error.limit ? `the ${describeBytes(error.limit)} limit` : 'the size limit';
      return `Request body is larger than ${limit} (imports: use POST /api/reports/import, up to ${describeBytes(this.limits.importMaxBytes)})`;
    }
    if (error.type === 'entity.parse.failed') return `Request body is not valid JSON (${error.message})`;
    if (error.expose === false) return STATUS_CODES[error.status] ?? 'Bad request';
    return error.message.charAt(0).toUpperCase() + error.message.slice(1);
  }
}
