import type { DataSource, EntityManager } from 'typeorm';
import { ApiTokenEntity } from './api-token.entity';

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
 * Stores a token for `operatorId` unless the operator already holds `max` tokens; returns the row,
 * or null when the limit is reached. The operator's row is locked first, so two concurrent
 * creations cannot both pass the count.
 */
export async function insertApiToken(db: DataSource, token: NewApiToken, max: number): Promise<ApiTokenEntity | null> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT 1 FROM operators WHERE id = $1 FOR UPDATE`, [token.operatorId]);
    const held = await tx.getRepository(ApiTokenEntity).countBy({ operatorId: token.operatorId });
    if (held >= max) return null;
    return tx.getRepository(ApiTokenEntity).save(tx.getRepository(ApiTokenEntity).create(token));
  });
}

/** The tokens of `operatorId`, newest first. */
export function listApiTokens(db: DataSource | EntityManager, operatorId: string): Promise<ApiTokenEntity[]> {
  return db.getRepository(ApiTokenEntity).find({ where: { operatorId }, order: { createdAt: 'DESC', id: 'ASC' } });
}

/** Deletes token `id` of `operatorId`; false when the operator holds no such token. */
export async function deleteApiToken(db: DataSource | EntityManager, operatorId: string, id: string): Promise<boolean> {
  const result = await db.getRepository(ApiTokenEntity).delete({ id, operatorId });
  return (result.affected ?? 0) > 0;
}

/** Deletes every token of `operatorId` (when an admin disables the operator); returns how many. */
export async function deleteApiTokensOf(db: DataSource | EntityManager, operatorId: string): Promise<number> {
  const result = await db.getRepository(ApiTokenEntity).delete({ operatorId });
  return result.affected ?? 0;
}

/** The token whose secret hashes to `tokenHash`, or null. */
export function findApiTokenByHash(db: DataSource | EntityManager, tokenHash: string): Promise<ApiTokenEntity | null> {
  return db.getRepository(ApiTokenEntity).findOneBy({ tokenHash });
}
