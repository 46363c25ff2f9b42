import type { MigrationInterface, QueryRunner } from 'typeorm';

/** `follow_up` from `metadata` for the given keys, immutable functions only (see ChatMessagesFollowUp). */
const followUpExpression = (keys: string[]) =>
  keys
    .map(
      (k) =>
        `(CASE WHEN metadata ? '${k}' THEN jsonb_set('{}'::jsonb, '{${k}}', metadata -> '${k}') ELSE '{}'::jsonb END)`,
    )
    .join(' || ');

/**
 * Adds `lastGroups` to `follow_up` ("show the second one" after "top 3 reports"). A generated
 * column cannot be altered, so it is dropped and added again (a table rewrite).
 */
export class ChatMessagesFollowUpGroups1764501600000 implements MigrationInterface {
  name = 'ChatMessagesFollowUpGroups1764501600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat_messages DROP COLUMN follow_up`);
    await q.query(
      `ALTER TABLE chat_messages ADD COLUMN follow_up jsonb NOT NULL GENERATED ALWAYS AS (${followUpExpression(['lastFilter', 'lastFindingIds', 'lastScope', 'lastGroups'])}) STORED`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat_messages DROP COLUMN follow_up`);
    await q.query(
      `ALTER TABLE chat_messages ADD COLUMN follow_up jsonb NOT NULL GENERATED ALWAYS AS (${followUpExpression(['lastFilter', 'lastFindingIds', 'lastScope'])}) STORED`,
    );
  }
}
