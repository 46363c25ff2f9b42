import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The single-row model settings table, created with the defaults (built-in planner). */
export class CreateSettings1764500200000 implements MigrationInterface {
  name = 'CreateSettings1764500200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE settings (
        id smallint NOT NULL,
        backend varchar(16) NOT NULL DEFAULT 'builtin',
        base_url text,
        api_key text,
        model text,
        updated_at timestamptz,
        CONSTRAINT pk_settings PRIMARY KEY (id),
        CONSTRAINT ck_settings_single_row CHECK (id = 1),
        CONSTRAINT ck_settings_backend CHECK (backend IN ('builtin', 'openai'))
      )`);
    await q.query(`INSERT INTO settings (id, backend) VALUES (1, 'builtin')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE settings`);
  }
}
