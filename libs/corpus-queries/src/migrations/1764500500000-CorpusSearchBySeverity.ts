import type { MigrationInterface, QueryRunner } from 'typeorm';

const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;

/**
 * One full-text GIN index and one CWE GIN index per severity, so a page of search results (most severe first) is cut from
 * one severity's matches at a time, and the planner knows how a term is spread over severities.
 *
 * Each index is over `CASE WHEN severity = '<s>' THEN finding_search_vector(current_version_id) END`:
 * the current version's search vector for findings of that severity, NULL for the others. The
 * expression is deliberately not a partial index: PostgreSQL's planner ignores the statistics of
 * partial indexes, but it collects and uses the statistics of an expression index (most common
 * lexemes and their frequencies, over the rows of that severity, with the NULL fraction applied),
 * so `<expression> @@ query` is estimated per severity. A term concentrated in low-severity
 * findings ("cookie") is then known to be rare among critical ones, which decides between
 * collecting those matches and walking the `(severity, id)` index (see `searchFindings`).
 *
 * The same holds for `CASE WHEN severity = '<s>' THEN cwe END` (`ix_findings_cwe_<s>`): a text
 * that names a weakness class also matches the class's CWE ids, and one severity's part of that
 * OR is then read from that severity's two indexes only.
 *
 * The query layer builds the same expressions (`severitySearchVector` and `severityCwe` in
 * `queries/finding-filter.ts`); they must stay identical for the indexes to be used.
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
