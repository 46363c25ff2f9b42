import type { DataSource, EntityManager } from 'typeorm';
import type { OperatorLanguage } from '@corpus-chat/contracts';
import { OperatorEntity } from './operator.entity';

/**
 * The operator whose username equals `username` ignoring case (the lookup the unique index
 * `uq_operators_username_lower` serves), or `null`.
 */
export function findOperatorByUsername(
  db: DataSource | EntityManager,
  username: string,
): Promise<OperatorEntity | null> {
  return db
    .getRepository(OperatorEntity)
    .createQueryBuilder('o')
    .where('lower(o.username) = lower(:username)', { username })
    .getOne();
}

/** The operator with id `id` (a UUID), or `null`. */
export function findOperatorById(db: DataSource | EntityManager, id: string): Promise<OperatorEntity | null> {
  return db.getRepository(OperatorEntity).findOneBy({ id });
}

/** The answer language operator `id` chose, or `en` when no such operator exists. */
export async function operatorLanguage(
  db: DataSource | EntityManager,
  id: string,
): Promise<OperatorLanguage> {
  const row = await db
    .getRepository(OperatorEntity)
    .findOne({ where: { id }, select: { id: true, language: true } });
  return row?.language ?? 'en';
}

/** Atomically bumps operator `id`'s token version, ending earlier sessions; null when unknown. */
export async function bumpTokenVersion(db: DataSource | EntityManager, id: string): Promise<number | null> {
  const rows: { token_version: number }[] = await db.query(
    // A CTE so the driver answers rows (TypeORM shapes a bare UPDATE's result differently).
    `WITH bumped AS (UPDATE operators SET token_version = token_version + 1 WHERE id = $1 RETURNING token_version)
     SELECT token_version FROM bumped`,
    [id],
  );
  return rows[0]?.token_version ?? null;
}

/** Whether at least one enabled admin exists (the start-up bootstrap creates one when none does). */
export async function hasEnabledAdmin(db: DataSource | EntityManager): Promise<boolean> {
  return db.getRepository(OperatorEntity).existsBy({ role: 'admin', disabled: false });
}

/** Postgres error code of a unique violation; `isUniqueViolation(e, 'uq_operators_username_lower')`. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as {
    code?: string;
    constraint?: string;
    driverError?: { code?: string; constraint?: string };
  };
  const code = e?.driverError?.code ?? e?.code;
  const name = e?.driverError?.constraint ?? e?.constraint;
  return code === '23505' && (constraint === undefined || name === constraint);
}
