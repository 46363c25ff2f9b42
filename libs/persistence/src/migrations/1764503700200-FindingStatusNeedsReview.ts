import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Triage status `needs_review`: a finding a model extracted from a PDF report waits for a person
 * to confirm or dismiss it. Findings extracted before this migration keep their status.
 */
export class FindingStatusNeedsReview1764503700200 implements MigrationInterface {
  name = 'FindingStatusNeedsReview1764503700200';

  async up(q: QueryRunner): Promise<void> {
    await setStatuses(q, `('open', 'confirmed', 'false_positive', 'risk_accepted', 'fixed', 'needs_review')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE findings SET status = 'open' WHERE status = 'needs_review'`);
    await q.query(`DELETE FROM finding_status_changes WHERE from_status = 'needs_review'`);
    await setStatuses(q, `('open', 'confirmed', 'false_positive', 'risk_accepted', 'fixed')`);
  }
}

/** Replaces the checks of the status columns with `statuses` (a SQL list). */
async function setStatuses(q: QueryRunner, statuses: string): Promise<void> {
  await q.query(`ALTER TABLE findings DROP CONSTRAINT ck_findings_status`);
  await q.query(`ALTER TABLE findings ADD CONSTRAINT ck_findings_status CHECK (status IN ${statuses})`);
  for (const end of ['from', 'to']) {
    await q.query(`ALTER TABLE finding_status_changes DROP CONSTRAINT ck_finding_status_changes_${end}`);
    await q.query(
      `ALTER TABLE finding_status_changes ADD CONSTRAINT ck_finding_status_changes_${end} CHECK (${end}_status IN ${statuses})`,
    );
  }
}
