import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `import_jobs`: one uploaded report file on its way from the API (which stores it on disk) to the
 * ingest worker (which parses and stores it). `outcome` is the importer's answer once it ended.
 */
export class CreateImportJobs1764501800000 implements MigrationInterface {
  name = 'CreateImportJobs1764501800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE import_jobs (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        operator_id uuid NOT NULL,
        filename text NOT NULL,
        upload_path text NOT NULL,
        size_bytes bigint NOT NULL,
        status text NOT NULL DEFAULT 'queued',
        outcome jsonb,
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_import_jobs PRIMARY KEY (id),
        CONSTRAINT fk_import_jobs_operator FOREIGN KEY (operator_id) REFERENCES operators(id) ON DELETE CASCADE,
        CONSTRAINT ck_import_jobs_status CHECK (status IN ('queued', 'parsing', 'ready', 'failed', 'cancelled'))
      )`);
    await q.query(
      `CREATE INDEX ix_import_jobs_operator_created ON import_jobs (operator_id, created_at DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE import_jobs`);
  }
}
