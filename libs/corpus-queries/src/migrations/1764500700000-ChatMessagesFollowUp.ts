import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `follow_up` from `metadata`: each follow-up key (`HISTORY_METADATA_KEYS`) the metadata has, built
 * with immutable functions only (`jsonb_set`, not the stable `jsonb_build_object`), as a generated
 * column requires.
 */
const FOLLOW_UP_EXPRESSION = ['lastFilter', 'lastFindingIds', 'lastScope']
  .map(
    (k) =>
      `(CASE WHEN metadata ? '${k}' THEN jsonb_set('{}'::jsonb, '{${k}}', metadata -> '${k}') ELSE '{}'::jsonb END)`,
  )
  .join(' || ');

/**
 * `chat_messages.follow_up`: the follow-up state of a message's metadata (`lastFilter`,
 * `lastFindingIds`, `lastScope`), a stored generated column, computed once when the message is
 * written (and for every existing message by this migration).
 *
 * A turn's history (`TurnLedger.startRun`) reads it instead of `metadata`: an answer's metadata
 * also holds its tool calls with the data of their cards (kilobytes, compressed out of line), which
 * Postgres decompressed for every message of the thread on every turn (`pglz_decompress` in a perf
 * profile of the scale-out benchmark, `startRun` 7.9 ms a call in `pg_stat_statements`).
 *
 * Adding a stored generated column rewrites `chat_messages` under an exclusive lock (every row's
 * metadata is read once): on a large deployment, chat is paused for that long while the first
 * upgraded process migrates at start-up.
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
