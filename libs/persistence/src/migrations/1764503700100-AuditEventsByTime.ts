import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Audit indexes end in `created_at DESC, id DESC`, so each filter reads one page of an index. */
export class AuditEventsByTime1764503700100 implements MigrationInterface {
  name = 'AuditEventsByTime1764503700100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX ix_audit_events_action`);
    await q.query(`DROP INDEX ix_audit_events_actor`);
    await q.query(`DROP INDEX ix_audit_events_subject`);
    await q.query(`CREATE INDEX ix_audit_events_time ON audit_events (created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX ix_audit_events_action ON audit_events (action, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX ix_audit_events_actor ON audit_events (actor_id, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX ix_audit_events_subject ON audit_events (subject_type, subject_id, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const name of ['time', 'action', 'actor', 'subject'])
      await q.query(`DROP INDEX ix_audit_events_${name}`);
    await q.query(`CREATE INDEX ix_audit_events_action ON audit_events (action, id DESC)`);
    await q.query(`CREATE INDEX ix_audit_events_actor ON audit_events (actor_id, id DESC)`);
    await q.query(`CREATE INDEX ix_audit_events_subject ON audit_events (subject_type, subject_id, id DESC)`);
  }
}
