import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A retest of one finding (its events are in `session_events`): imported, or entered by an operator
 * (`tried`, `retested_at`, `author`; see `recordRetest`).
 */
@Entity('retest_sessions')
@Index('ix_retest_sessions_finding', ['findingId'])
export class RetestSessionEntity {
  @PrimaryGeneratedColumn('identity', {
    primaryKeyConstraintName: 'pk_retest_sessions',
    generatedIdentity: 'BY DEFAULT',
  })
  id!: number;

  @Column({ name: 'finding_id', type: 'integer' })
  findingId!: number;

  @Column({ type: 'text' })
  status!: string;

  @Column({ type: 'text', nullable: true })
  model!: string | null;

  /** What the operator tried; null for an imported retest. */
  @Column({ type: 'text', nullable: true })
  tried!: string | null;

  @Column({ name: 'retested_at', type: 'timestamptz', nullable: true })
  retestedAt!: Date | null;

  /** Username of the operator who entered it. */
  @Column({ type: 'text', nullable: true })
  author!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;
}
