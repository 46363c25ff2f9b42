import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One event of a retest session, ordered by `seq` (unique per session). */
@Entity('session_events')
@Index('uq_session_events_session_seq', ['sessionId', 'seq'], { unique: true })
export class SessionEventEntity {
  @PrimaryGeneratedColumn('identity', {
    primaryKeyConstraintName: 'pk_session_events',
    generatedIdentity: 'BY DEFAULT',
  })
  id!: number;

  @Column({ name: 'session_id', type: 'integer' })
  sessionId!: number;

  @Column({ type: 'integer' })
  seq!: number;

  @Column({ type: 'text' })
  kind!: string;

  @Column({ type: 'jsonb', default: () => `'{}'::jsonb` })
  payload!: unknown;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
