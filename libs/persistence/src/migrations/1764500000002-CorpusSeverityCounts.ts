import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `finding_severity_counts` per report and severity, kept exact by statement triggers with
 * transition tables, so severity/report breakdowns read a few rows instead of counting a million.
 * Archived reports are excluded by a join; findings without a report count under `report_key = 0`.
 */
export class CorpusSeverityCounts1764500000002 implements MigrationInterface {
  name = 'CorpusSeverityCounts1764500000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE finding_severity_counts (
        report_key integer NOT NULL,
        severity finding_severity NOT NULL,
        findings bigint NOT NULL,
        CONSTRAINT pk_finding_severity_counts PRIMARY KEY (report_key, severity),
        CONSTRAINT ck_finding_severity_counts_non_negative CHECK (findings >= 0)
      )`);
    await q.query(`COMMENT ON TABLE finding_severity_counts IS
      'findings per report (0 = none) and severity; maintained by the tr_findings_count_* triggers, never written directly'`);

    // Adds the per-(report, severity) difference between two row sets (either may be empty).
    await q.query(`
      CREATE FUNCTION corpus_apply_count_delta() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO finding_severity_counts AS c (report_key, severity, findings)
          SELECT coalesce(report_id, 0), severity, count(*) FROM new_rows GROUP BY 1, 2
          ON CONFLICT (report_key, severity) DO UPDATE SET findings = c.findings + EXCLUDED.findings;
        ELSIF TG_OP = 'DELETE' THEN
          UPDATE finding_severity_counts c SET findings = c.findings - d.n
          FROM (SELECT coalesce(report_id, 0) AS report_key, severity, count(*) AS n FROM old_rows GROUP BY 1, 2) d
          WHERE c.report_key = d.report_key AND c.severity = d.severity;
        ELSE
          -- Existing keys take the signed difference; new keys (only ever positive) are inserted.
          -- The check constraint applies to a proposed row even when it conflicts, hence two steps.
          WITH d AS (
            SELECT report_key, severity, sum(n) AS n FROM (
              SELECT coalesce(report_id, 0) AS report_key, severity, 1 AS n FROM new_rows
              UNION ALL
              SELECT coalesce(report_id, 0), severity, -1 FROM old_rows
            ) x GROUP BY 1, 2 HAVING sum(n) <> 0
          ), updated AS (
            UPDATE finding_severity_counts c SET findings = c.findings + d.n
            FROM d WHERE c.report_key = d.report_key AND c.severity = d.severity
            RETURNING c.report_key, c.severity
          )
          INSERT INTO finding_severity_counts AS c (report_key, severity, findings)
          SELECT d.report_key, d.severity, d.n FROM d
          WHERE d.n > 0 AND NOT EXISTS (SELECT 1 FROM updated u WHERE u.report_key = d.report_key AND u.severity = d.severity)
          ON CONFLICT (report_key, severity) DO UPDATE SET findings = c.findings + EXCLUDED.findings;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER tr_findings_count_insert AFTER INSERT ON findings
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION corpus_apply_count_delta()`);
    await q.query(`
      CREATE TRIGGER tr_findings_count_update AFTER UPDATE ON findings
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION corpus_apply_count_delta()`);
    await q.query(`
      CREATE TRIGGER tr_findings_count_delete AFTER DELETE ON findings
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION corpus_apply_count_delta()`);
    await q.query(`
      CREATE FUNCTION corpus_clear_counts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM finding_severity_counts;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER tr_findings_count_truncate AFTER TRUNCATE ON findings
        FOR EACH STATEMENT EXECUTE FUNCTION corpus_clear_counts()`);

    await q.query(`
      INSERT INTO finding_severity_counts (report_key, severity, findings)
      SELECT coalesce(report_id, 0), severity, count(*) FROM findings GROUP BY 1, 2`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER tr_findings_count_truncate ON findings`);
    await q.query(`DROP TRIGGER tr_findings_count_delete ON findings`);
    await q.query(`DROP TRIGGER tr_findings_count_update ON findings`);
    await q.query(`DROP TRIGGER tr_findings_count_insert ON findings`);
    await q.query(`DROP FUNCTION corpus_clear_counts()`);
    await q.query(`DROP FUNCTION corpus_apply_count_delta()`);
    await q.query(`DROP TABLE finding_severity_counts`);
  }
}
