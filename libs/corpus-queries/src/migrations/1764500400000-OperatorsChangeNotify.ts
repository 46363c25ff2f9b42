import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every update or deletion of an operator row sends `NOTIFY operator_changed, '<id>'` (after the
 * change commits). The API caches the operators of sessions for a short time and drops an entry
 * when its notice arrives, so a disable, a password reset or a role change made anywhere (another
 * API instance, a CLI, SQL by hand) takes effect on every instance without a lookup per request.
 * The channel name is `OPERATOR_CHANGED_CHANNEL` in apps/api/src/auth/operator-cache.ts.
 */
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
