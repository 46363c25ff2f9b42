import type { MigrationInterface, QueryRunner } from 'typeorm';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/**
 * Full-text and CWE GIN indexes per severity over `CASE WHEN severity = '<s>' THEN … END`, so a
 * page is cut one severity at a time. Expression rather than partial indexes: the planner keeps
 * statistics for expressions, so it knows how a term spreads over severities. The query layer
 * must build identical expressions.
 */
export class CorpusSearchBySeverity1764500500000 implements MigrationInterface {
  name = 'CorpusSearchBySeverity1764500500000';

  async up(q: QueryRunner): Promise<void> {
    for (const s of SEVERITIES) {
      await q.query(
        `CREATE INDEX ix_findings_search_${s} ON findings USING gin
           ((CASE WHEN severity = '${s}'::finding_severity THEN finding_search_vector(current_version_id) END))`,
      );
      await q.query(
        `CREATE INDEX ix_findings_cwe_${s} ON findings USING gin ((CASE WHEN severity = '${s}'::finding_severity THEN cwe END))`,
      );
    }
    await q.query(`ANALYZE findings`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const s of SEVERITIES) await q.query(`DROP INDEX ix_findings_search_${s}, ix_findings_cwe_${s}`);
  }
}
