import {
  ConflictException,
  Injectable,
  Logger,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import { databaseUnavailable } from '../errors/database-unavailable';
import { createHash, randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  API_TOKEN_DEFAULT_DAYS,
  API_TOKENS_PER_OPERATOR,
  type ApiTokenView,
  type CreateApiTokenDto,
  type CreatedApiToken,
} from '@corpus-chat/contracts';
import {
  type ApiTokenEntity,
  deleteApiToken,
  findApiTokenByHash,
  findOperatorById,
  insertApiToken,
  listApiTokens,
  touchApiToken,
} from '@corpus-chat/persistence';
import type { AuthenticatedOperator } from './current-operator';

/** Every secret starts with this, so secret scanners and people can tell what it is. */
export const API_TOKEN_PREFIX = 'cc_pat_';
/** Characters of the secret kept in clear (`prefix`) to tell tokens apart in the list. */
const SHOWN_CHARS = API_TOKEN_PREFIX.length + 4;
/** `cc_pat_` + 43 base64url characters (32 random bytes). */
const SECRET_PATTERN = /^cc_pat_[A-Za-z0-9_-]{43}$/;

/**
 * SHA-256, hex. A fast unsalted hash is right here, unlike for passwords: the secret carries 256
 * random bits, so there is nothing to guess or precompute, and a lookup by hash needs no per-row salt.
 */
export const hashApiToken = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex');

const toView = (t: ApiTokenEntity): ApiTokenView => ({
  id: t.id,
  name: t.name,
  scope: t.scope,
  prefix: t.prefix,
  createdAt: t.createdAt.toISOString(),
  expiresAt: t.expiresAt?.toISOString() ?? null,
  lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
});

/**
 * Operators' API tokens (scope `read`): the secret is answered once; a token is refused once
 * revoked or expired and while its operator is disabled or gone (checked every request). Tokens
 * survive sign-out and are all revoked on a password change or reset or a disable. The caller
 * confirms the password before `create`.
 */
@Injectable()
export class ApiTokensService {
  private readonly logger = new Logger(ApiTokensService.name);

  constructor(private readonly db: DataSource) {}

  /** 409 when the operator already holds `API_TOKENS_PER_OPERATOR` tokens. */
  async create(
    operator: AuthenticatedOperator,
    dto: CreateApiTokenDto,
    now = new Date(),
  ): Promise<CreatedApiToken> {
    const operatorId = operator.id;
    const secret = API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const days = dto.expiresInDays ?? API_TOKEN_DEFAULT_DAYS;
    const expiresAt = new Date(now.getTime() + days * 86_400_000);
    const saved = await insertApiToken(
      this.db,
      {
        operatorId,
        name: dto.name.trim(),
        tokenHash: hashApiToken(secret),
        prefix: secret.slice(0, SHOWN_CHARS),
        createdAt: now,
        expiresAt,
      },
      API_TOKENS_PER_OPERATOR,
      operator,
    );
    if (!saved)
      throw new ConflictException(
        `You hold ${API_TOKENS_PER_OPERATOR} API tokens already: revoke one you no longer use first.`,
      );
    this.logger.log({ msg: 'API token created', operatorId, tokenId: saved.id, expiresAt });
    return { ...toView(saved), secret };
  }

  async list(operatorId: string): Promise<ApiTokenView[]> {
    return (await listApiTokens(this.db, operatorId)).map(toView);
  }

  /** 404 when the operator holds no token `id` (another operator's token included). */
  async revoke(operator: AuthenticatedOperator, id: string): Promise<void> {
    const operatorId = operator.id;
    if (!(await deleteApiToken(this.db, operatorId, id, operator)))
      throw new NotFoundException('You hold no API token with this id.');
    this.logger.log({ msg: 'API token revoked', operatorId, tokenId: id });
  }

  /**
   * The operator `secret` acts for, and the token's id. 401 for a malformed, unknown (revoked) or
   * expired token and for a disabled or deleted operator; 503 when Postgres cannot be read.
   */
  async verify(
    secret: string,
    now = Date.now(),
  ): Promise<{ operator: AuthenticatedOperator; tokenId: string }> {
    if (!SECRET_PATTERN.test(secret))
      throw new UnauthorizedException('This API token is malformed: copy the whole token (cc_pat_…).');
    const unavailable = (e: Error): never => {
      this.logger.error({ msg: 'could not check an API token', err: e.message });
      throw databaseUnavailable(e);
    };
    const token = await findApiTokenByHash(this.db, hashApiToken(secret)).catch(unavailable);
    if (!token)
      throw new UnauthorizedException(
        'This API token is unknown or was revoked: create a new one under My account.',
      );
    if (token.expiresAt && token.expiresAt.getTime() <= now) {
      throw new UnauthorizedException('This API token has expired: create a new one under My account.');
    }
    const operator = await findOperatorById(this.db, token.operatorId).catch(unavailable);
    await touchApiToken(this.db, token.id).catch(unavailable);
    if (!operator || operator.disabled)
      throw new UnauthorizedException('The account of this API token is disabled or no longer exists.');
    const { id, username, displayName, role, language } = operator;
    return { operator: { id, username, displayName, role, language }, tokenId: token.id };
  }
}
