import crypto from 'node:crypto';
import argon2 from 'argon2';
import type { DataSource } from 'typeorm';
import type { OperatorRole } from '@corpus-chat/contracts';
import { OperatorEntity } from '../operators/operator.entity';

/** An operator a test created, with the plain password it can sign in with. */
export interface TestOperator {
  id: string;
  username: string;
  password: string;
  role: OperatorRole;
  displayName: string;
}

/**
 * Inserts an operator (argon2id-hashed password) into the test database `ds`. Defaults: a unique
 * username `op-<random>`, a random 20-character password, role `operator`, enabled.
 */
export async function insertTestOperator(
  ds: DataSource,
  o: {
    username?: string;
    password?: string;
    role?: OperatorRole;
    displayName?: string;
    disabled?: boolean;
  } = {},
): Promise<TestOperator> {
  const username = o.username ?? `op-${crypto.randomBytes(4).toString('hex')}`;
  const password = o.password ?? crypto.randomBytes(15).toString('base64url');
  const role = o.role ?? 'operator';
  const displayName = o.displayName ?? username;
  const passwordHash = await argon2.hash(password, { type: argon2.argon2id, memoryCost: 4096, timeCost: 2 });
  const row = await ds
    .getRepository(OperatorEntity)
    .save({ username, displayName, role, passwordHash, disabled: o.disabled ?? false });
  return { id: row.id, username, password, role, displayName };
}
