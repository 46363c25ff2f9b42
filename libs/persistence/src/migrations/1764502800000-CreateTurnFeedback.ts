import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `turn_feedback`: an operator's thumbs up or down (and optional comment) on a turn's answer, one
 * row per operator and turn, replaced when changed. Goes with its turn (and thread) when deleted.
 */
export class CreateTurnFeedback1764502800000 implements MigrationInterface {
  name = 'CreateTurnFeedback1764502800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE turn_feedback (
        turn_id uuid NOT NULL,
        operator_id uuid NOT NULL,
        rating varchar(8) NOT NULL,
        comment text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_turn_feedback PRIMARY KEY (turn_id, operator_id),
        CONSTRAINT fk_turn_feedback_turn FOREIGN KEY (turn_id) REFERENCES chat_turns(id) ON DELETE CASCADE,
        CONSTRAINT fk_turn_feedback_operator FOREIGN KEY (operator_id) REFERENCES operators(id) ON DELETE CASCADE,
        CONSTRAINT ck_turn_feedback_rating CHECK (rating IN ('up', 'down')),
        CONSTRAINT ck_turn_feedback_comment CHECK (char_length(comment) <= 2000)
      )`);
    await q.query(`CREATE INDEX ix_turn_feedback_updated ON turn_feedback (updated_at DESC, turn_id)`);
    await q.query(`CREATE INDEX ix_turn_feedback_operator ON turn_feedback (operator_id, updated_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE turn_feedback`);
  }
}
