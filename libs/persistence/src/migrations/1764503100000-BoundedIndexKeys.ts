import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hash indexes for keys that grow with the file (`scan_target`, `lower(filename)`): a btree entry
 * must fit 2,704 bytes. They serve the same equality lookups; `format` left the key.
 */
export class BoundedIndexKeys1764503100000 implements MigrationInterface {
  name = 'BoundedIndexKeys1764503100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_reports_format_scan_target, ix_reports_filename_lower`);
    await q.query(
      `CREATE INDEX ix_reports_scan_target ON reports USING hash (scan_target) WHERE scan_target IS NOT NULL`,
    );
    await q.query(`CREATE INDEX ix_reports_filename_lower ON reports USING hash (lower(filename))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_reports_scan_target, ix_reports_filename_lower`);
    await q.query(
      `CREATE INDEX ix_reports_format_scan_target ON reports (format, scan_target) WHERE scan_target IS NOT NULL`,
    );
    await q.query(`CREATE INDEX ix_reports_filename_lower ON reports (lower(filename))`);
  }
}
