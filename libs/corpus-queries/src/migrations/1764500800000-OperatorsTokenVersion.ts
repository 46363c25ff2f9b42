import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `operators.token_version`: the version every session token of the operator must carry. Signing
 * out, a password change or reset, disabling and re-enabling add one, so every token issued before
 * is refused at once (an exact integer comparison, where `password_changed_at` compared whole
 * seconds and could not revoke anything else).
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
