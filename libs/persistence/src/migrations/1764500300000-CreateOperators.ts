import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Operator accounts: case-insensitive unique usernames, role, argon2 hash, disabled flag. */
export class CreateOperators1764500300000 implements MigrationInterface {
  name = 'CreateOperators1764500300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE operators (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        username varchar(64) NOT NULL,
        display_name varchar(100) NOT NULL,
        role varchar(16) NOT NULL,
        password_hash text NOT NULL,
        password_changed_at timestamptz NOT NULL DEFAULT now(),
        disabled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_operators PRIMARY KEY (id),
        CONSTRAINT ck_operators_role CHECK (role IN ('admin', 'operator'))
      )`);
    await q.query(`CREATE UNIQUE INDEX uq_operators_username_lower ON operators (lower(username))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE operators`);
  }
}
