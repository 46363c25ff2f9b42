import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `operators.token_version`, which every session token must carry: sign-out, a password change or
 * reset, a disable or re-enable add one, refusing all older tokens at once.
 */
export class OperatorsTokenVersion1764500800000 implements MigrationInterface {
  name = 'OperatorsTokenVersion1764500800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE operators ADD COLUMN token_version integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE operators DROP COLUMN token_version`);
  }
}
