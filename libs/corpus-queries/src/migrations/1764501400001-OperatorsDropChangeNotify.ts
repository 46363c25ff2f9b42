import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the `operator_changed` NOTIFY trigger of OperatorsChangeNotify. The API no longer keeps
 * operators in memory: each request and socket handshake reads its operator by primary key, so a
 * change (disable, role, `token_version`) takes effect on the next request on every instance
 * without a notice.
 */
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
