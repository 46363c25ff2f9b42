import type { MigrationInterface, QueryRunner } from 'typeorm';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/**
 * One full-text GIN index per severity over `CASE WHEN severity = '<s>' THEN … END`, read by
 * `queries/severity-page.ts` (same expression). Expression rather than partial indexes because the
 * planner keeps statistics for expressions (bench:queries, see severity-page.ts).
 */
export class CorpusSearchPageBySeverity1764503000000 implements MigrationInterface {
  name = 'CorpusSearchPageBySeverity1764503000000';

  async up(q: QueryRunner): Promise<void> {
    for (const s of SEVERITIES) {
      await q.query(
        `CREATE INDEX ix_findings_search_${s} ON findings USING gin
           ((CASE WHEN severity = '${s}'::finding_severity THEN finding_search_vector(current_version_id) END))`,
      );
    }
    await q.query(`ANALYZE findings`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const s of SEVERITIES) await q.query(`DROP INDEX ix_findings_search_${s}`);
  }
}
