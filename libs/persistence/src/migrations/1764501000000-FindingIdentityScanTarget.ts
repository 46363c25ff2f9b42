import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scan comparison (IMPORT-RULES.md): `findings.identity_key` and `reports.scan_target`/`scanned_at`,
 * indexed for grouping by identity and finding same-target scans. Earlier rows keep nulls (re-import
 * to compare them).
 */
export class FindingIdentityScanTarget1764501000000 implements MigrationInterface {
  name = 'FindingIdentityScanTarget1764501000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE findings ADD COLUMN identity_key text`);
    await q.query(`CREATE INDEX ix_findings_report_identity ON findings (report_id, identity_key)`);
    await q.query(`ALTER TABLE reports ADD COLUMN scan_target text[], ADD COLUMN scanned_at timestamptz`);
    await q.query(
      `CREATE INDEX ix_reports_format_scan_target ON reports (format, scan_target) WHERE scan_target IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_reports_format_scan_target`);
    await q.query(`ALTER TABLE reports DROP COLUMN scan_target, DROP COLUMN scanned_at`);
    await q.query(`DROP INDEX ix_findings_report_identity`);
    await q.query(`ALTER TABLE findings DROP COLUMN identity_key`);
  }
}
