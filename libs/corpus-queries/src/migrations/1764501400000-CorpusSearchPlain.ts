import type { MigrationInterface, QueryRunner } from 'typeorm';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/**
 * Drops the ten per-severity expression indexes of CorpusSearchBySeverity
 * (`ix_findings_search_<severity>`, `ix_findings_cwe_<severity>`). A search's page is now one plain
 * `ORDER BY severity, id LIMIT …` that Postgres plans over `ix_findings_search`, `ix_findings_cwe`
 * and `ix_findings_live_severity`; nothing reads those indexes or their statistics any more, and
 * each import paid for keeping ten more GIN indexes.
 */
export class CorpusSearchPlain1764501400000 implements MigrationInterface {
  name = 'CorpusSearchPlain1764501400000';

  async up(q: QueryRunner): Promise<void> {
    for (const s of SEVERITIES) await q.query(`DROP INDEX ix_findings_search_${s}, ix_findings_cwe_${s}`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const s of SEVERITIES) {
      await q.query(
        `CREATE INDEX ix_findings_search_${s} ON findings USING gin
           ((CASE WHEN severity = '${s}'::finding_severity THEN finding_search_vector(current_version_id) END))`,
      );
      await q.query(
        `CREATE INDEX ix_findings_cwe_${s} ON findings USING gin ((CASE WHEN severity = '${s}'::finding_severity THEN cwe END))`,
      );
    }
  }
}
