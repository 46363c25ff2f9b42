import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `chat_reads`: when each operator last saw each thread (its newest answer after that is unread).
 * Every existing thread counts as seen now, so the upgrade marks nothing unread.
 */
export class CreateChatReads1764503700000 implements MigrationInterface {
  name = 'CreateChatReads1764503700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE chat_reads (
      operator_id uuid NOT NULL,
      chat_id uuid NOT NULL,
      seen_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT pk_chat_reads PRIMARY KEY (operator_id, chat_id),
      CONSTRAINT fk_chat_reads_operator FOREIGN KEY (operator_id) REFERENCES operators(id) ON DELETE CASCADE,
      CONSTRAINT fk_chat_reads_chat FOREIGN KEY (chat_id) REFERENCES chat_sessions(id) ON DELETE CASCADE
    )`);
    await q.query(`CREATE INDEX idx_chat_reads_chat ON chat_reads (chat_id)`);
    await q.query(
      `INSERT INTO chat_reads (operator_id, chat_id, seen_at) SELECT owner_id, id, now() FROM chat_sessions`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chat_reads`);
  }
}
