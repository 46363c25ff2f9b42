import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `import_cancel_requests`: a cancel of an import whose worker is storing it (and holds its row
 * lock) is recorded here without waiting for that lock; the worker checks it between statements.
 */
export class ImportCancelRequests1764503800100 implements MigrationInterface {
  name = 'ImportCancelRequests1764503800100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE import_cancel_requests (
        import_id uuid NOT NULL,
        requested_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_import_cancel_requests PRIMARY KEY (import_id),
        CONSTRAINT fk_import_cancel_requests_import FOREIGN KEY (import_id)
          REFERENCES import_jobs (id) ON DELETE CASCADE
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE import_cancel_requests`);
  }
}
