import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `api_tokens.last_used_at` (shown in the token list), and an expiry for the tokens created while
 * "never" was allowed: they now end 90 days from this migration, like a new token by default.
 */
export class ApiTokensLastUsed1764503400000 implements MigrationInterface {
  name = 'ApiTokensLastUsed1764503400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_tokens ADD COLUMN last_used_at timestamptz`);
    await q.query(`UPDATE api_tokens SET expires_at = now() + interval '90 days' WHERE expires_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_tokens DROP COLUMN last_used_at`);
  }
}
