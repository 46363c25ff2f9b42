import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One signed-in browser of an operator (migration 1764503700000-CreateOperatorSessions). */
@Entity('operator_sessions')
@Index('ix_operator_sessions_operator', ['operatorId', 'createdAt'])
export class OperatorSessionEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_operator_sessions' })
  id!: string;

  @Column({ name: 'operator_id', type: 'uuid' })
  operatorId!: string;

  /** The `User-Agent` it signed in with (cut to 500 characters). */
  @Column({ name: 'user_agent', type: 'varchar', length: 500, default: '' })
  userAgent!: string;

  /** The client address of its latest request (as `TRUST_PROXY` resolves it). */
  @Column({ type: 'varchar', length: 64, default: '' })
  ip!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  /** Its latest request, written at most once a minute. */
  @Column({ name: 'last_seen_at', type: 'timestamptz', default: () => 'now()' })
  lastSeenAt!: Date;
}
