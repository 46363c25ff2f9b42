import type { MigrationInterface, QueryRunner } from 'typeorm';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/**
 * One full-text GIN index per severity, `ix_findings_search_<severity>`, over
 * `CASE WHEN severity = '<s>' THEN finding_search_vector(current_version_id) END`, read by
 * `queries/severity-page.ts` (which builds the same expression; they must stay identical).
 *
 * A text search's page (most severe first) is cut one severity at a time from that
 * severity's matches, instead of walking `(severity, id)` and reading each finding's version to
 * test its text (bench:queries at 1M findings, common term "cookie": capped page p95 13.6 ms
 * without these indexes, goal 5 ms). An expression index rather than a partial one because the
 * planner keeps statistics for an index expression (lexeme frequencies among that severity's
 * findings) but not for a partial index's predicate, so it knows how rare a term is within one
 * severity and picks between reading its matches and walking its findings.
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
