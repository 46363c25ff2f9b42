import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops `finding_versions`' three unread indexes (queries go through `findings`); every import
 * paid for them (docs/benchmarks.md, scenario 7).
 */
export class FindingVersionsDropUnusedIndexes1764502900000 implements MigrationInterface {
  name = 'FindingVersionsDropUnusedIndexes1764502900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP INDEX ix_finding_versions_search, ix_finding_versions_cwe, ix_finding_versions_severity`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX ix_finding_versions_search ON finding_versions USING gin (search_vector)`);
    await q.query(`CREATE INDEX ix_finding_versions_cwe ON finding_versions USING gin (cwe)`);
    await q.query(`CREATE INDEX ix_finding_versions_severity ON finding_versions (severity)`);
  }
}
