import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `follow_up` from `metadata` with immutable functions only (`jsonb_set`), as a generated column needs. */
const FOLLOW_UP_EXPRESSION = ['lastFilter', 'lastFindingIds', 'lastScope']
  .map(
    (k) =>
      `(CASE WHEN metadata ? '${k}' THEN jsonb_set('{}'::jsonb, '{${k}}', metadata -> '${k}') ELSE '{}'::jsonb END)`,
  )
  .join(' || ');

/**
 * `chat_messages.follow_up`, a stored generated column of the follow-up keys, read by
 * `TurnLedger.startRun` instead of `metadata`, whose tool cards were decompressed for every message
 * on every turn. Adding it rewrites the table under an exclusive lock.
 */
export class ChatMessagesFollowUp1764500700000 implements MigrationInterface {
  name = 'ChatMessagesFollowUp1764500700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE chat_messages ADD COLUMN follow_up jsonb NOT NULL GENERATED ALWAYS AS (${FOLLOW_UP_EXPRESSION}) STORED`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat_messages DROP COLUMN follow_up`);
  }
}
