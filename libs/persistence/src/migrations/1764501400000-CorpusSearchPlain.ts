import type { MigrationInterface, QueryRunner } from 'typeorm';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/** Drops CorpusSearchBySeverity's ten indexes: the page became one plain query, and imports paid for them. */
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
