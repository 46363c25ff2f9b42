import type { MigrationInterface, QueryRunner } from 'typeorm';

/** NOTIFY `operator_changed` on operator updates, for the API's operator cache (since dropped). */
export class OperatorsChangeNotify1764500400000 implements MigrationInterface {
  name = 'OperatorsChangeNotify1764500400000';

  async up(q: QueryRunner): Promise<void> {
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

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER trg_operators_notify_changed ON operators`);
    await q.query(`DROP FUNCTION notify_operator_changed()`);
  }
}
