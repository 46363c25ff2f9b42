import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scan comparison (IMPORT-RULES.md "Finding identity and scan comparison"):
 * - `findings.identity_key`: hex SHA-256 of the finding's identity list (JSON), indexed with its
 *   report so a comparison groups two reports' findings by identity from the index;
 * - `reports.scan_target` (sorted, normalised names) and `reports.scanned_at` (the recorded scan
 *   time), indexed with the format so "scans of the same target" is one index lookup.
 * Rows imported before this migration keep nulls: their source files are not re-read, so such a
 * report names no target and is compared with no other (re-import it to compare it). Native and
 * manual findings have no identity.
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
