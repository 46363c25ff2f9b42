import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `finding_status_changes.carried_from_finding_id`: where a carried status came from. */
export class StatusCarriedFrom1764502500000 implements MigrationInterface {
  name = 'StatusCarriedFrom1764502500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE finding_status_changes ADD COLUMN carried_from_finding_id integer`);
    await q.query(
      `ALTER TABLE finding_status_changes ADD CONSTRAINT fk_finding_status_changes_carried_from
         FOREIGN KEY (carried_from_finding_id) REFERENCES findings (id) ON DELETE SET NULL`,
    );
    // Deleting a report's findings looks up the rows that point at them.
    await q.query(
      `CREATE INDEX ix_finding_status_changes_carried_from ON finding_status_changes (carried_from_finding_id)
         WHERE carried_from_finding_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE finding_status_changes DROP COLUMN carried_from_finding_id`);
  }
}
