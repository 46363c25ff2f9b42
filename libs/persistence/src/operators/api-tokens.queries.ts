import type { DataSource, EntityManager } from 'typeorm';
import { ApiTokenEntity } from './api-token.entity';
import { recordAuditEvent, type AuditActor } from '../audit/audit-log';

/** What `insertApiToken` stores: the hash and prefix of a secret the caller generated. */
export interface NewApiToken {
  operatorId: string;
  name: string;
  tokenHash: string;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
}

/**
 * Stores a token unless the operator holds `max` (null then), the operator's row locked so
 * concurrent creations cannot both pass; audited without the secret, in the same transaction.
 */
export async function insertApiToken(
  db: DataSource,
  token: NewApiToken,
  max: number,
  actor: AuditActor,
): Promise<ApiTokenEntity | null> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT 1 FROM operators WHERE id = $1 FOR UPDATE`, [token.operatorId]);
    const held = await tx.getRepository(ApiTokenEntity).countBy({ operatorId: token.operatorId });
    if (held >= max) return null;
    const saved = await tx.getRepository(ApiTokenEntity).save(tx.getRepository(ApiTokenEntity).create(token));
    await recordAuditEvent(tx, {
      action: 'api_token.create',
      actor,
      subjectType: 'operator',
      subjectId: token.operatorId,
      after: {
        tokenId: saved.id,
        name: saved.name,
        prefix: saved.prefix,
        expiresAt: saved.expiresAt?.toISOString() ?? null,
      },
    });
    return saved;
  });
}

/** The tokens of `operatorId`, newest first. */
export function listApiTokens(db: DataSource | EntityManager, operatorId: string): Promise<ApiTokenEntity[]> {
  return db
    .getRepository(ApiTokenEntity)
    .find({ where: { operatorId }, order: { createdAt: 'DESC', id: 'ASC' } });
}

/** Deletes token `id` of `operatorId`, audited (`api_token.revoke`) in the same transaction; false when the operator holds no such token. */
export async function deleteApiToken(
  db: DataSource,
  operatorId: string,
  id: string,
  actor: AuditActor,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const result = await tx.getRepository(ApiTokenEntity).delete({ id, operatorId });
    if (!result.affected) return false;
    await recordAuditEvent(tx, {
      action: 'api_token.revoke',
      actor,
      subjectType: 'operator',
      subjectId: operatorId,
      before: { tokenId: id },
    });
    return true;
  });
}

/** Deletes every token of `operatorId` (operator disabled, password changed or reset); returns how many. */
export async function deleteApiTokensOf(db: DataSource | EntityManager, operatorId: string): Promise<number> {
  const result = await db.getRepository(ApiTokenEntity).delete({ operatorId });
  return result.affected ?? 0;
}

/** The token whose secret hashes to `tokenHash`, or null. */
export function findApiTokenByHash(
  db: DataSource | EntityManager,
  tokenHash: string,
): Promise<ApiTokenEntity | null> {
  return db.getRepository(ApiTokenEntity).findOneBy({ tokenHash });
}

/**
 * Records that token `id` authenticated a request now. Written at most once a minute per token,
 * so a busy script costs one small update a minute, not one per request.
 */
export async function touchApiToken(db: DataSource | EntityManager, id: string): Promise<void> {
  await db.query(
    `UPDATE api_tokens SET last_used_at = now()
     WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
    [id],
  );
}
