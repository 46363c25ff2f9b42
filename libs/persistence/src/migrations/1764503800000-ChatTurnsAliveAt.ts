import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `chat_turns.alive_at`: the worker running a turn writes it every few seconds, so the API's
 * sweep tells a turn whose worker is still on it from a lost one when Redis lost the job.
 */
export class ChatTurnsAliveAt1764503800000 implements MigrationInterface {
  name = 'ChatTurnsAliveAt1764503800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat_turns ADD COLUMN alive_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE chat_turns DROP COLUMN alive_at`);
  }
}
