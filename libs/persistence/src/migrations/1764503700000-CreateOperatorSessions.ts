import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `operator_sessions`: one row per signed-in browser (`sid`); cookies without a `sid` are refused. */
export class CreateOperatorSessions1764503700000 implements MigrationInterface {
  name = 'CreateOperatorSessions1764503700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE operator_sessions (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        operator_id uuid NOT NULL,
        user_agent varchar(500) NOT NULL DEFAULT '',
        ip varchar(64) NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_operator_sessions PRIMARY KEY (id),
        CONSTRAINT fk_operator_sessions_operator FOREIGN KEY (operator_id) REFERENCES operators (id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ix_operator_sessions_operator ON operator_sessions (operator_id, created_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE operator_sessions`);
  }
}
