import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the three indexes of `finding_versions` that no query reads: every search, count and page
 * goes through `findings` (`ix_findings_search` over `finding_search_vector(current_version_id)`,
 * `ix_findings_cwe`, `ix_findings_live_severity`), and versions are only read by id or by
 * `(finding_id, version)`. Each imported finding paid for a second full-text GIN entry, a second
 * CWE GIN entry and a severity entry on its version (docs/benchmarks.md, scenario 7).
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
