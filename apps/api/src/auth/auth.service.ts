import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  Logger,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import { databaseUnavailable } from '../errors/database-unavailable';
import { JwtService } from '@nestjs/jwt';
import { DataSource } from 'typeorm';
import type { OperatorLanguage, OperatorView } from '@corpus-chat/contracts';
import {
  OperatorEntity,
  bumpTokenVersion,
  deleteApiTokensOf,
  deleteOperatorSessionsOf,
  findOperatorById,
  findOperatorByUsername,
  findSessionWithOperator,
  insertOperatorSession,
  recordAuditEvent,
  SESSION_SEEN_EVERY_MS,
  touchOperatorSession,
} from '@corpus-chat/persistence';
import type { AuthenticatedOperator } from './current-operator';
import { AUTH_ENV, type AuthEnv } from './auth.env';
import { LoginThrottleService } from './login-throttle.service';
import { hashPassword, verifyPassword } from './passwords';

/** Claims of a session token (times in epoch seconds); `authAt`, the sign-in, survives renewals. */
export interface SessionClaims {
  sub: string;
  ver: number;
  sid: string;
  authAt: number;
  iat: number;
  exp: number;
}

/**
 * A verified session: who, its token version and row id, and when it was signed in, issued and expires (ms
 * since epoch).
 */
export interface Session {
  operator: AuthenticatedOperator;
  version: number;
  sessionId: string;
  authAt: number;
  issuedAt: number;
  expiresAt: number;
}

/** 429 for a sign-in attempt made before the slow-down allows it; `retryAfterSeconds` goes into `Retry-After`. */
export class TooManyLoginAttemptsException extends HttpException {
  constructor(readonly retryAfterSeconds: number) {
    super(
      {
        statusCode: 429,
        error: 'Too Many Requests',
        message: `Too many failed sign-ins. Try again in ${retryAfterSeconds} s.`,
      },
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}

/** The generic answer to a failed sign-in: never says whether the username exists. */
const WRONG_CREDENTIALS = 'Wrong username or password.';
/** A session id (UUID) as the `sid` claim carries it. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where a sign-in or a request comes from: recorded on the session row. */
export interface ClientInfo {
  ip: string;
  userAgent?: string;
}

/** Sign-in with the right password of a disabled operator. */
const ACCOUNT_DISABLED = 'This account is disabled. Ask an administrator to enable it again.';

/** The wire view of an operator (`OperatorView`): what `/api/auth/*` and `/api/operators` answer. */
export function toOperatorView(o: OperatorEntity): OperatorView {
  return {
    id: o.id,
    username: o.username,
    displayName: o.displayName,
    role: o.role,
    disabled: o.disabled,
    language: o.language,
    createdAt: o.createdAt.toISOString(),
  };
}

/**
 * Signs operators in and verifies sessions for REST and Socket.IO alike. A session token is an
 * HS256 JWT (`sub`, token version `ver`, session row `sid`); each verification reads the operator
 * with that row, so an ended session, a disable, a new password or role applies on the next
 * request. Renewal never passes `SESSION_MAX_HOURS` after sign-in.
 */
@Injectable()
export class AuthService {
  private readonly logger = new Logger(AuthService.name);

  constructor(
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
    private readonly jwt: JwtService,
    private readonly db: DataSource,
    private readonly loginThrottle: LoginThrottleService,
  ) {}

  /** Session lifetime in ms. */
  get sessionTtlMs(): number {
    return this.env.SESSION_TTL_MINUTES * 60_000;
  }

  /** Longest a session lasts from sign-in, renewals included, in ms. */
  get sessionMaxMs(): number {
    return this.env.SESSION_MAX_HOURS * 3_600_000;
  }

  /**
   * Signs in from `ip`: the operator and a fresh token. 429 during the slow-down, 401 (generic) for
   * an unknown user or wrong password, 403 "disabled" only for the right password.
   */
  async login(
    username: string,
    password: string,
    client: ClientInfo,
  ): Promise<{ operator: OperatorEntity; token: string }> {
    const { ip } = client;
    // The attempt is counted as failed before the password is looked at, so parallel guesses
    // cannot all pass the check; `succeeded` takes the count back.
    const waitMs = await this.loginThrottle.reserveAttempt(username, ip);
    if (waitMs > 0) throw new TooManyLoginAttemptsException(Math.ceil(waitMs / 1000));
    const found = await findOperatorByUsername(this.db, username).catch((e: Error) => {
      this.logger.error({ msg: 'could not look up an operator at sign-in', err: e.message });
      throw new ServiceUnavailableException(
        'Sign-in is unavailable right now (the database cannot be reached). Try again in a moment.',
      );
    });
    const ok = await verifyPassword(found?.passwordHash, password, this.env.PASSWORD_HASH_MEMORY_KIB);
    if (!found || !ok) {
      this.logger.warn({ msg: 'sign-in refused', operatorId: found?.id ?? null, ip });
      throw new UnauthorizedException(WRONG_CREDENTIALS);
    }
    if (found.disabled) {
      // Only someone who knows the password learns that the account exists and is disabled.
      this.logger.warn({ msg: 'sign-in refused: operator disabled', operatorId: found.id, ip });
      throw new ForbiddenException(ACCOUNT_DISABLED);
    }
    await this.loginThrottle.succeeded(username, ip);
    const sid = await insertOperatorSession(this.db, {
      operatorId: found.id,
      userAgent: client.userAgent ?? '',
      ip,
    });
    this.logger.log({ msg: 'signed in', operatorId: found.id, sessionId: sid });
    return { operator: found, token: await this.issueToken(found.id, found.tokenVersion, sid) };
  }

  /**
   * Checks the signed-in operator's own `password` under sign-in's slow-down: 429 while it applies,
   * 403 wrong (counted), 401 gone or disabled.
   */
  async confirmPassword(operatorId: string, password: string, ip: string): Promise<OperatorEntity> {
    const operator = await findOperatorById(this.db, operatorId);
    if (!operator || operator.disabled)
      throw new UnauthorizedException('This account is disabled or no longer exists.');
    const waitMs = await this.loginThrottle.reserveAttempt(operator.username, ip);
    if (waitMs > 0) throw new TooManyLoginAttemptsException(Math.ceil(waitMs / 1000));
    if (!(await verifyPassword(operator.passwordHash, password, this.env.PASSWORD_HASH_MEMORY_KIB))) {
      this.logger.warn({ msg: 'password confirmation refused: wrong password', operatorId, ip });
      throw new ForbiddenException('Your current password is not right.');
    }
    await this.loginThrottle.succeeded(operator.username, ip);
    return operator;
  }

  /**
   * Changes the operator's own password after checking the current one as `confirmPassword` does
   * (400 when unchanged). Every other session ends (`endedSessions`, whose sockets are the
   * caller's), older session tokens and all API tokens are refused; returns a fresh token for
   * `session`.
   */
  async changePassword(
    session: Pick<Session, 'operator' | 'sessionId'>,
    currentPassword: string,
    newPassword: string,
    ip: string,
  ): Promise<{ operator: OperatorEntity; token: string; endedSessions: string[] }> {
    const operatorId = session.operator.id;
    const operator = await this.confirmPassword(operatorId, currentPassword, ip);
    if (currentPassword === newPassword)
      throw new BadRequestException('Choose a new password that differs from the current one.');
    operator.passwordHash = await hashPassword(newPassword, this.env.PASSWORD_HASH_MEMORY_KIB);
    operator.passwordChangedAt = new Date();
    const changed = await this.db.transaction(async (tx) => {
      await tx
        .getRepository(OperatorEntity)
        .update(
          { id: operatorId },
          { passwordHash: operator.passwordHash, passwordChangedAt: operator.passwordChangedAt },
        );
      // Someone who learnt the old password may have minted tokens with it.
      await deleteApiTokensOf(tx, operatorId);
      const endedSessions = await deleteOperatorSessionsOf(tx, operatorId, session.sessionId);
      return { version: await bumpTokenVersion(tx, operatorId), endedSessions };
    });
    if (changed.version === null) throw new UnauthorizedException('This account no longer exists.');
    operator.tokenVersion = changed.version;
    this.logger.log({ msg: 'password changed by its operator', operatorId });
    const token = await this.issueToken(operatorId, changed.version, session.sessionId);
    return { operator, token, endedSessions: changed.endedSessions };
  }

  /**
   * A session token valid for `SESSION_TTL_MINUTES`, never past `SESSION_MAX_HOURS` after `authAtMs`
   * (401 when that has passed).
   */
  async issueToken(operatorId: string, version: number, sid: string, authAtMs = Date.now()): Promise<string> {
    const now = Date.now();
    const leftMs = Math.min(this.sessionTtlMs, authAtMs + this.sessionMaxMs - now);
    if (leftMs < 1000)
      throw new UnauthorizedException('Your session reached its maximum length: sign in again.');
    const authAt = Math.floor(authAtMs / 1000);
    return this.jwt.signAsync(
      { sub: operatorId, ver: version, sid, authAt },
      { expiresIn: Math.floor(leftMs / 1000) },
    );
  }

  /**
   * Verifies `token` and loads its operator: 401 when missing, malformed, expired, past
   * `SESSION_MAX_HOURS`, of an old token version or ended session, or for a disabled or gone
   * operator; 503 when Postgres cannot be read. With `client`, records last-seen (≤ once a minute).
   */
  async verifySession(token: string | undefined, client?: ClientInfo): Promise<Session> {
    if (!token) throw new UnauthorizedException('Sign in first.');
    let claims: SessionClaims;
    try {
      claims = await this.jwt.verifyAsync<SessionClaims>(token, { algorithms: ['HS256'] });
    } catch (e) {
      const expired = (e as Error).name === 'TokenExpiredError';
      throw new UnauthorizedException(
        expired ? 'Your session has expired: sign in again.' : 'Sign in first.',
      );
    }
    if (
      typeof claims.sub !== 'string' ||
      !/^[0-9a-f-]{36}$/i.test(claims.sub) ||
      !Number.isInteger(claims.ver) ||
      typeof claims.sid !== 'string' ||
      !UUID.test(claims.sid) ||
      !Number.isFinite(claims.authAt)
    ) {
      throw new UnauthorizedException('Sign in first.');
    }
    if (Date.now() >= claims.authAt * 1000 + this.sessionMaxMs) {
      throw new UnauthorizedException('Your session reached its maximum length: sign in again.');
    }
    const unavailable = (e: Error): never => {
      this.logger.error({ msg: 'could not load the operator of a session', err: e.message });
      throw databaseUnavailable(e);
    };
    const found = await findSessionWithOperator(this.db, claims.sub, claims.sid).catch(unavailable);
    if (!found) throw new UnauthorizedException('This session has ended: sign in again.');
    const { operator } = found;
    if (operator.disabled) throw new UnauthorizedException('This account is disabled or no longer exists.');
    if (claims.ver !== operator.tokenVersion)
      throw new UnauthorizedException('This session has ended: sign in again.');
    if (client && Date.now() - found.lastSeenAt.getTime() >= SESSION_SEEN_EVERY_MS)
      await touchOperatorSession(this.db, claims.sid, client.ip).catch(unavailable);
    const { id, username, displayName, role, language } = operator;
    return {
      operator: { id, username, displayName, role, language },
      version: claims.ver,
      sessionId: claims.sid,
      authAt: claims.authAt * 1000,
      issuedAt: claims.iat * 1000,
      expiresAt: claims.exp * 1000,
    };
  }

  /** The operator with `id` as an `OperatorView`; 401 when it no longer exists. */
  async operatorView(id: string): Promise<OperatorView> {
    const operator = await findOperatorById(this.db, id);
    if (!operator) throw new UnauthorizedException('This account no longer exists.');
    return toOperatorView(operator);
  }

  /** Sets the operator's language, audited in the same transaction (nothing when unchanged); 401 if gone. */
  async setLanguage(actor: AuthenticatedOperator, language: OperatorLanguage): Promise<OperatorView> {
    const operator = await this.db.transaction(async (tx) => {
      const repo = tx.getRepository(OperatorEntity);
      const found = await repo.findOne({ where: { id: actor.id }, lock: { mode: 'pessimistic_write' } });
      if (!found) throw new UnauthorizedException('This account no longer exists.');
      if (found.language === language) return found;
      const before = found.language;
      await repo.update({ id: actor.id }, { language });
      await recordAuditEvent(tx, {
        action: 'operator.update',
        actor,
        subjectType: 'operator',
        subjectId: actor.id,
        before: { language: before },
        after: { language },
      });
      return Object.assign(found, { language });
    });
    this.logger.log({ msg: 'language chosen by its operator', operatorId: actor.id, language });
    return toOperatorView(operator);
  }

  /**
   * Whether `session` has used up more than half its lifetime and a renewal would extend it (not
   * once its expiry is already the absolute limit after sign-in).
   */
  shouldRenew(session: Session, now = Date.now()): boolean {
    const limit = session.authAt + this.sessionMaxMs;
    return (
      now - session.issuedAt > this.sessionTtlMs / 2 && session.expiresAt < limit - 1000 && now < limit - 1000
    );
  }

  /** A renewed token for `session`: same operator, version and sign-in time. */
  renewToken(session: Session): Promise<string> {
    return this.issueToken(session.operator.id, session.version, session.sessionId, session.authAt);
  }
}
