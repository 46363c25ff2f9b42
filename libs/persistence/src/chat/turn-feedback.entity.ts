import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { FeedbackRating } from '@corpus-chat/contracts';

/**
 * An operator's feedback on a turn's answer (migration CreateTurnFeedback): one row per operator
 * and turn, replaced when the operator changes it.
 */
@Entity('turn_feedback')
@Index('ix_turn_feedback_updated', ['updatedAt', 'turnId'])
@Index('ix_turn_feedback_operator', ['operatorId', 'updatedAt'])
export class TurnFeedbackEntity {
  @PrimaryColumn({ name: 'turn_id', type: 'uuid', primaryKeyConstraintName: 'pk_turn_feedback' })
  turnId!: string;

  @PrimaryColumn({ name: 'operator_id', type: 'uuid', primaryKeyConstraintName: 'pk_turn_feedback' })
  operatorId!: string;

  @Column({ type: 'varchar', length: 8 })
  rating!: FeedbackRating;

  @Column({ type: 'text', nullable: true })
  comment!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
