import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { WsException } from '@nestjs/websockets';
import type { Request, Response } from 'express';
import type { OperatorRole } from '@corpus-chat/contracts';
import type { AuthenticatedOperator } from './current-operator';
import { ApiTokensService } from './api-tokens.service';
import { IS_PUBLIC_KEY, READ_SCOPE_KEY, ROLES_KEY } from './auth.decorators';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import { AuthService } from './auth.service';
import { allowedOrigins, assertSameOriginWrite } from './csrf';
import { SESSION_COOKIE, sessionCookieOptions, sessionTokenOf } from './session-cookie';

/**
 * The request as the auth layer leaves it: `operator` set on every non-public route; `viaApiToken`
 * when a bearer API token (not the session cookie) authenticated it.
 */
export type AuthenticatedRequest = Request & {
  operator?: AuthenticatedOperator;
  viaApiToken?: boolean;
  /** The API token of a bearer request (its reads are audited by that id). */
  apiTokenId?: string;
  /** The session (row of `operator_sessions`) of a request signed in with the cookie. */
  sessionId?: string;
};

/**
 * The credential of `Authorization: Bearer <token>` ('' when the header names the scheme but no
 * token), or undefined without such a header (other schemes are left alone).
 */
export function bearerTokenOf(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header || !/^bearer\b/i.test(header)) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/**
 * The global guard, failing closed: unless `@Public()`, a bearer API token (only on `@ReadScope()`
 * routes without `@Roles`, else 403) or the session cookie (renewed past half its life) must name
 * an enabled operator (else 401); a session's state-changing requests pass the CSRF check; `@Roles`
 * routes need the role (403). On Socket.IO handlers it requires `socket.data.operator`.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly origins: Set<string>;

  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly apiTokens: ApiTokensService,
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
  ) {
    this.origins = allowedOrigins(env);
  }

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    const roles = this.reflector.getAllAndOverride<OperatorRole[] | undefined>(ROLES_KEY, targets);
    if (ctx.getType() === 'ws') {
      const operator = ctx.switchToWs().getClient<{ data?: { operator?: AuthenticatedOperator } }>()
        .data?.operator;
      if (!operator) throw new WsException('unauthorized');
      if (roles?.length && !roles.includes(operator.role)) throw new WsException('forbidden');
      return true;
    }
    if (ctx.getType() !== 'http') return true;

    const req = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC_KEY, targets) === true;
    const bearer = isPublic ? undefined : bearerTokenOf(req);
    if (bearer !== undefined) {
      const verified = await this.apiTokens.verify(bearer);
      req.operator = verified.operator;
      req.apiTokenId = verified.tokenId;
      req.viaApiToken = true;
      if (roles?.length)
        throw new ForbiddenException(
          'API tokens cannot reach admin routes: sign in to the web client instead.',
        );
      if (this.reflector.get<boolean | undefined>(READ_SCOPE_KEY, ctx.getHandler()) !== true) {
        throw new ForbiddenException(
          'API tokens (scope read) cannot use this route: it changes state or is not a corpus or thread read.',
        );
      }
      return true;
    }
    if (!isPublic) {
      const session = await this.auth.verifySession(sessionTokenOf(req), { ip: req.ip ?? 'unknown' });
      req.operator = session.operator;
      req.sessionId = session.sessionId;
      if (this.auth.shouldRenew(session)) {
        res.cookie(SESSION_COOKIE, await this.auth.renewToken(session), sessionCookieOptions(this.env));
      }
    }
    assertSameOriginWrite(req, this.origins);
    if (roles?.length && !(req.operator && roles.includes(req.operator.role))) {
      throw new ForbiddenException('Only an admin may do this.');
    }
    return true;
  }
}
