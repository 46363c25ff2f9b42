import {
  type CallHandler,
  type ExecutionContext,
  Injectable,
  Logger,
  type NestInterceptor,
} from '@nestjs/common';
import type { Response } from 'express';
import type { Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import { recordAuditEvent, type AuditEventInput } from '@corpus-chat/persistence';
import type { AuthenticatedRequest } from '../auth/auth.guard';

/** Longest path (with its query string) or tool argument text an event keeps. */
const MAX_TEXT = 500;

const cut = (s: string): string => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT)}…` : s);

/**
 * The audit event of a read made outside the web client (an MCP tool call, or any API-token
 * request), or null. One event per request, never per row.
 */
export function readAuditEvent(req: AuthenticatedRequest, status: number): AuditEventInput | null {
  const operator = req.operator;
  if (!operator) return null;
  const base = {
    actor: { id: operator.id, username: operator.username },
    subjectType: 'operator' as const,
    subjectId: operator.id,
  };
  const via = req.apiTokenId ? { via: 'api_token', tokenId: req.apiTokenId } : { via: 'session' };
  if (req.path === '/mcp') {
    const body = req.body as
      { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | undefined;
    if (body?.method !== 'tools/call') return null;
    return {
      ...base,
      action: 'mcp.call',
      after: {
        ...via,
        tool: cut(String(body.params?.name ?? '')),
        arguments: cut(JSON.stringify(body.params?.arguments ?? {})),
        status,
      },
    };
  }
  if (!req.apiTokenId) return null;
  return {
    ...base,
    action: 'api_token.read',
    after: { ...via, method: req.method, path: cut(req.originalUrl), status },
  };
}

/**
 * Audits token and MCP reads after the response, on a connection of its own so a slow insert never
 * delays a read; a failed insert is only logged.
 */
@Injectable()
export class ReadAuditInterceptor implements NestInterceptor {
  private readonly logger = new Logger(ReadAuditInterceptor.name);

  constructor(private readonly db: DataSource) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() === 'http') {
      const req = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
      const res = ctx.switchToHttp().getResponse<Response>();
      res.once('finish', () => {
        const event = readAuditEvent(req, res.statusCode);
        if (!event) return;
        recordAuditEvent(this.db.manager, event).catch((e: Error) =>
          this.logger.error({ msg: 'could not audit a read', operatorId: event.actor.id, err: e.message }),
        );
      });
    }
    return next.handle();
  }
}
