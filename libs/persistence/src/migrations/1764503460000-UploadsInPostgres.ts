import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Uploads live in Postgres in chunks until imported, so no shared disk is needed (`STORAGE
 * EXTERNAL`: short-lived chunks are not worth compressing). Imports queued on disk end `failed`.
 */
export class UploadsInPostgres1764503460000 implements MigrationInterface {
  name = 'UploadsInPostgres1764503460000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE import_upload_chunks (
        import_job_id uuid NOT NULL,
        seq integer NOT NULL,
        data bytea NOT NULL,
        CONSTRAINT pk_import_upload_chunks PRIMARY KEY (import_job_id, seq),
        CONSTRAINT fk_import_upload_chunks_job FOREIGN KEY (import_job_id)
          REFERENCES import_jobs (id) ON DELETE CASCADE
      )`);
    await q.query(`ALTER TABLE import_upload_chunks ALTER COLUMN data SET STORAGE EXTERNAL`);
    await q.query(
      `UPDATE import_jobs SET status = 'failed', updated_at = now(),
         error = 'this file waited on the old shared upload folder when Corpus Chat was upgraded; nothing was imported. Import the file again'
       WHERE status IN ('queued', 'parsing')`,
    );
    await q.query(`ALTER TABLE import_jobs DROP COLUMN upload_path`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE import_jobs ADD COLUMN upload_path text NOT NULL DEFAULT ''`);
    await q.query(`DROP TABLE import_upload_chunks`);
  }
}
