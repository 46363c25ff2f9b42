import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat threads: `chat_sessions` (owned by an operator; the foreign key to `operators` is added by
 * the operators migration), `chat_turns` (one queued/running turn per thread, one turn per client
 * message id) and `chat_messages` (one user and at most one assistant message per turn).
 */
export class CreateChatThreads1764500100000 implements MigrationInterface {
  name = 'CreateChatThreads1764500100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chat_sessions (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL,
        title varchar(200) NOT NULL,
        title_source varchar(16) NOT NULL DEFAULT 'default',
        last_model varchar(200),
        archived boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_chat_sessions PRIMARY KEY (id),
        CONSTRAINT ck_chat_sessions_title_source CHECK (title_source IN ('default', 'auto', 'user'))
      )`);
    await q.query(
      `CREATE INDEX idx_chat_sessions_owner_updated ON chat_sessions (owner_id, archived, updated_at)`,
    );

    await q.query(`
      CREATE TABLE chat_turns (
        id uuid NOT NULL,
        chat_id uuid NOT NULL,
        client_message_id uuid,
        status varchar(16) NOT NULL,
        queue_position integer NOT NULL DEFAULT 1,
        attempt integer NOT NULL DEFAULT 0,
        worker_id varchar(200),
        error_code varchar(32),
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz,
        CONSTRAINT pk_chat_turns PRIMARY KEY (id),
        CONSTRAINT fk_chat_turns_chat FOREIGN KEY (chat_id) REFERENCES chat_sessions (id) ON DELETE CASCADE,
        CONSTRAINT ck_chat_turns_status CHECK (status IN ('queued', 'running', 'complete', 'cancelled', 'error'))
      )`);
    await q.query(
      `CREATE UNIQUE INDEX uq_chat_turns_active_per_chat ON chat_turns (chat_id) WHERE status IN ('queued', 'running')`,
    );
    await q.query(
      `CREATE UNIQUE INDEX uq_chat_turns_client_message ON chat_turns (chat_id, client_message_id) WHERE client_message_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX idx_chat_turns_chat_created ON chat_turns (chat_id, created_at)`);

    await q.query(`
      CREATE TABLE chat_messages (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        chat_id uuid NOT NULL,
        turn_id uuid NOT NULL,
        role varchar(16) NOT NULL,
        content text NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'complete',
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_chat_messages PRIMARY KEY (id),
        CONSTRAINT fk_chat_messages_chat FOREIGN KEY (chat_id) REFERENCES chat_sessions (id) ON DELETE CASCADE,
        CONSTRAINT fk_chat_messages_turn FOREIGN KEY (turn_id) REFERENCES chat_turns (id) ON DELETE CASCADE,
        CONSTRAINT ck_chat_messages_role CHECK (role IN ('user', 'assistant')),
        CONSTRAINT ck_chat_messages_status CHECK (status IN ('complete', 'cancelled', 'error'))
      )`);
    await q.query(
      `CREATE UNIQUE INDEX uq_chat_messages_turn_assistant ON chat_messages (turn_id) WHERE role = 'assistant'`,
    );
    await q.query(
      `CREATE UNIQUE INDEX uq_chat_messages_turn_user ON chat_messages (turn_id) WHERE role = 'user'`,
    );
    await q.query(`CREATE INDEX idx_chat_messages_chat_created ON chat_messages (chat_id, created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chat_messages`);
    await q.query(`DROP TABLE chat_turns`);
    await q.query(`DROP TABLE chat_sessions`);
  }
}
