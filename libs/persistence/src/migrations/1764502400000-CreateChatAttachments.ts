import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `chat_attachments`: files dropped on a thread, imported via `import_jobs`; reports outlive them. */
export class CreateChatAttachments1764502400000 implements MigrationInterface {
  name = 'CreateChatAttachments1764502400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE chat_attachments (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        chat_id uuid NOT NULL,
        import_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT pk_chat_attachments PRIMARY KEY (id),
        CONSTRAINT uq_chat_attachments_import UNIQUE (import_id),
        CONSTRAINT fk_chat_attachments_chat FOREIGN KEY (chat_id) REFERENCES chat_sessions(id) ON DELETE CASCADE,
        CONSTRAINT fk_chat_attachments_import FOREIGN KEY (import_id) REFERENCES import_jobs(id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ix_chat_attachments_chat_created ON chat_attachments (chat_id, created_at DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE chat_attachments`);
  }
}
