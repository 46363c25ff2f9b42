import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * PDF reports: status `needs_review`, version origins `extraction` and `manual`, `report_texts`
 * (pages separated by a form feed), and an import job's report and progress so a retry resumes.
 */
export class PdfReports1764502300000 implements MigrationInterface {
  name = 'PdfReports1764502300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE reports DROP CONSTRAINT ck_reports_status`);
    await q.query(
      `ALTER TABLE reports ADD CONSTRAINT ck_reports_status CHECK (status IN ('extracting', 'needs_review', 'ready', 'failed', 'cancelled'))`,
    );
    await q.query(`ALTER TABLE finding_versions DROP CONSTRAINT ck_finding_versions_origin`);
    await q.query(
      `ALTER TABLE finding_versions ADD CONSTRAINT ck_finding_versions_origin CHECK (origin IN ('import', 'edit', 'extraction', 'manual'))`,
    );
    await q.query(`
      CREATE TABLE report_texts (
        report_id integer NOT NULL,
        page_count integer NOT NULL,
        text text NOT NULL,
        CONSTRAINT pk_report_texts PRIMARY KEY (report_id),
        CONSTRAINT fk_report_texts_report FOREIGN KEY (report_id) REFERENCES reports (id) ON DELETE CASCADE,
        CONSTRAINT ck_report_texts_page_count CHECK (page_count >= 1)
      )`);
    await q.query(`ALTER TABLE import_jobs ADD COLUMN report_id integer, ADD COLUMN extraction jsonb`);
    await q.query(
      `ALTER TABLE import_jobs ADD CONSTRAINT fk_import_jobs_report FOREIGN KEY (report_id) REFERENCES reports (id) ON DELETE SET NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE import_jobs DROP CONSTRAINT fk_import_jobs_report`);
    await q.query(`ALTER TABLE import_jobs DROP COLUMN extraction, DROP COLUMN report_id`);
    await q.query(`DROP TABLE report_texts`);
    await q.query(
      `DELETE FROM findings WHERE id IN (SELECT finding_id FROM finding_versions WHERE origin IN ('extraction', 'manual'))`,
    );
    await q.query(`ALTER TABLE finding_versions DROP CONSTRAINT ck_finding_versions_origin`);
    await q.query(
      `ALTER TABLE finding_versions ADD CONSTRAINT ck_finding_versions_origin CHECK (origin IN ('import', 'edit'))`,
    );
    await q.query(`UPDATE reports SET status = 'ready' WHERE status = 'needs_review'`);
    await q.query(`ALTER TABLE reports DROP CONSTRAINT ck_reports_status`);
    await q.query(
      `ALTER TABLE reports ADD CONSTRAINT ck_reports_status CHECK (status IN ('extracting', 'ready', 'failed', 'cancelled'))`,
    );
  }
}
