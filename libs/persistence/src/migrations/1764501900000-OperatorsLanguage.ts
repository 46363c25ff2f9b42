import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `operators.language`: the operator's interface and answer language (`en` or `ru`, see
 * `OPERATOR_LANGUAGES` in contracts). Existing operators keep English.
 */
export class OperatorsLanguage1764501900000 implements MigrationInterface {
  name = 'OperatorsLanguage1764501900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE operators ADD COLUMN language varchar(2) NOT NULL DEFAULT 'en' CONSTRAINT chk_operators_language CHECK (language IN ('en', 'ru'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE operators DROP COLUMN language`);
  }
}
