import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Drops the `operator_changed` trigger: each request now reads its operator by primary key. */
export class OperatorsDropChangeNotify1764501400001 implements MigrationInterface {
  name = 'OperatorsDropChangeNotify1764501400001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER trg_operators_notify_changed ON operators`);
    await q.query(`DROP FUNCTION notify_operator_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION notify_operator_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('operator_changed', OLD.id::text);
        RETURN NULL;
      END
      $$`);
    await q.query(
      `CREATE TRIGGER trg_operators_notify_changed AFTER UPDATE OR DELETE ON operators
         FOR EACH ROW EXECUTE FUNCTION notify_operator_changed()`,
    );
  }
}
