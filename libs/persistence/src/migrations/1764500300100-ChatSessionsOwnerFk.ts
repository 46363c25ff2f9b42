import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Threads belong to operators: `chat_sessions.owner_id` references `operators.id`, and deleting an
 * operator deletes their threads (turns and messages follow by their own cascades).
 */
export class ChatSessionsOwnerFk1764500300100 implements MigrationInterface {
  name = 'ChatSessionsOwnerFk1764500300100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE chat_sessions ADD CONSTRAINT fk_chat_sessions_owner FOREIGN KEY (owner_id) REFERENCES operators (id) ON DELETE CASCADE`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat_sessions DROP CONSTRAINT fk_chat_sessions_owner`);
  }
}
