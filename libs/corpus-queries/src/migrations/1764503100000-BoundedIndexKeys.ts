import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes no key that grows with the imported file. A btree entry must fit a third of a page
 * (2,704 bytes), so a CSV export naming many hosts (`scan_target`) or an upload with a long file
 * name could not be stored at all. Hash indexes keep only a 4-byte hash of the value and serve the
 * same equality lookups unchanged: `scan_target = $n::text[]` (scans of the same target) and
 * `lower(filename) = lower($n)` (a report named in a question). `format` left the key: every
 * target names one format or two, so it is a cheap filter after the lookup.
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
