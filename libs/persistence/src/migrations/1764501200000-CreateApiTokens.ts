import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `api_tokens`: only the secret's SHA-256 (unique) and a display `prefix` are stored. */
export class CreateApiTokens1764501200000 implements MigrationInterface {
  name = 'CreateApiTokens1764501200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_tokens (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        operator_id uuid NOT NULL,
        name varchar(100) NOT NULL,
        scope varchar(16) NOT NULL DEFAULT 'read',
        token_hash char(64) NOT NULL,
        prefix varchar(16) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        CONSTRAINT pk_api_tokens PRIMARY KEY (id),
        CONSTRAINT fk_api_tokens_operator FOREIGN KEY (operator_id) REFERENCES operators (id) ON DELETE CASCADE,
        CONSTRAINT ck_api_tokens_scope CHECK (scope IN ('read'))
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_api_tokens_token_hash ON api_tokens (token_hash)`);
    await q.query(`CREATE INDEX ix_api_tokens_operator ON api_tokens (operator_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_tokens`);
  }
}
