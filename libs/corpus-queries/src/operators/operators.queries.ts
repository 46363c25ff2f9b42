import type { DataSource, EntityManager } from 'typeorm';
import { OperatorEntity } from './operator.entity';

/**
 * The operator whose username equals `username` ignoring case (the lookup the unique index
 * `uq_operators_username_lower` serves), or `null`.
 */
export function findOperatorByUsername(db: DataSource | EntityManager, username: string): Promise<OperatorEntity | null> {
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

/** Whether at least one enabled admin exists (the start-up bootstrap creates one when none does). */
export async function hasEnabledAdmin(db: DataSource | EntityManager): Promise<boolean> {
  return db.getRepository(OperatorEntity).existsBy({ role: 'admin', disabled: false });
}

/** Postgres error code of a unique violation; `isUniqueViolation(e, 'uq_operators_username_lower')`. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const e = error as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
  const code = e?.driverError?.code ?? e?.code;
  const name = e?.driverError?.constraint ?? e?.constraint;
  return code === '23505' && (constraint === undefined || name === constraint);
}
