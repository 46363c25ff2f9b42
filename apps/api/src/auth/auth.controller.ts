import { Body, Controller, Get, HttpCode, Inject, Patch, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  ChangePasswordDto,
  LoginDto,
  UpdateMyPreferencesDto,
  type OperatorView,
} from '@corpus-chat/contracts';
import { Public, ReadScope } from './auth.decorators';
import type { AuthenticatedRequest } from './auth.guard';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import { AuthService, TooManyLoginAttemptsException, toOperatorView } from './auth.service';
import { CurrentOperator, type AuthenticatedOperator } from './current-operator';
import { SESSION_COOKIE, sessionCookieOptions, sessionTokenOf } from './session-cookie';
import { SessionsService } from './sessions.service';
import { SocketAuthService } from './socket-auth.service';

/** Rethrows, first telling a throttled sign-in when to try again (`Retry-After`). */
const retryAfter =
  (res: Response) =>
  (e: unknown): never => {
    if (e instanceof TooManyLoginAttemptsException) res.setHeader('Retry-After', String(e.retryAfterSeconds));
    throw e;
  };

/**
 * `POST /api/auth/login`, `POST /api/auth/logout`, `POST /api/auth/logout-everywhere`,
 * `GET`/`PATCH /api/auth/me`, `POST /api/auth/password`.
 */
@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly sockets: SocketAuthService,
    private readonly sessions: SessionsService,
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
  ) {}

  /** Signs in, setting the httpOnly SameSite=Lax session cookie (errors as `AuthService.login`). */
  @Public()
  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Sign in (sets the session cookie)' })
  async login(
    @Body() body: LoginDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OperatorView> {
    const { operator, token } = await this.auth
      .login(body.username, body.password, { ip: req.ip ?? 'unknown', userAgent: req.get('user-agent') })
      .catch(retryAfter(res));
    res.cookie(SESSION_COOKIE, token, sessionCookieOptions(this.env));
    return toOperatorView(operator);
  }

  /** Signs out of this browser: ends this session and its sockets if valid; clears the cookie either way. */
  @Public()
  @Post('logout')
  @HttpCode(204)
  @ApiOperation({ summary: 'Sign out here (ends this session only, clears the session cookie)' })
  async logout(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<void> {
    const session = await this.auth.verifySession(sessionTokenOf(req)).catch(() => null);
    if (session) await this.sessions.endIfLive(session.operator.id, session.sessionId);
    this.clearCookie(res);
  }

  /** Signs out everywhere: ends every session and socket of the signed-in operator; clears this cookie. */
  @Post('logout-everywhere')
  @HttpCode(204)
  @ApiOperation({ summary: 'Sign out everywhere (ends all my sessions and sockets)' })
  async logoutEverywhere(
    @CurrentOperator() operator: AuthenticatedOperator,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    await this.sessions.endAll(operator.id);
    this.clearCookie(res);
  }

  private clearCookie(res: Response): void {
    const { maxAge: _maxAge, ...options } = sessionCookieOptions(this.env);
    res.clearCookie(SESSION_COOKIE, options);
  }

  /** The signed-in operator; 401 when signed out. */
  @Get('me')
  @ReadScope()
  @ApiOperation({ summary: 'The signed-in operator' })
  me(@CurrentOperator() operator: AuthenticatedOperator): Promise<OperatorView> {
    return this.auth.operatorView(operator.id);
  }

  /** The signed-in operator sets their own preferences (the language); 400 for a language not offered. */
  @Patch('me')
  @ApiOperation({ summary: 'Set my preferences (language of the interface and of answers)' })
  updateMe(
    @Body() body: UpdateMyPreferencesDto,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<OperatorView> {
    return this.auth.setLanguage(operator, body.language);
  }

  /**
   * Changes the operator's own password: every other session ends, this one gets a fresh cookie.
   * 403 wrong current password, 429 after repeated failures, 400 too short or unchanged.
   */
  @Post('password')
  @HttpCode(200)
  @ApiOperation({ summary: 'Change my password (ends my other sessions; renews this cookie)' })
  async changePassword(
    @Body() body: ChangePasswordDto,
    @CurrentOperator() current: AuthenticatedOperator,
    @Req() req: AuthenticatedRequest,
    @Res({ passthrough: true }) res: Response,
  ): Promise<OperatorView> {
    const { operator, token, endedSessions } = await this.auth
      .changePassword(
        { operator: current, sessionId: req.sessionId ?? '' },
        body.currentPassword,
        body.newPassword,
        req.ip ?? 'unknown',
      )
      .catch(retryAfter(res));
    this.sockets.disconnectSessions(endedSessions);
    res.cookie(SESSION_COOKIE, token, sessionCookieOptions(this.env));
    return toOperatorView(operator);
  }
}
