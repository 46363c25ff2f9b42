import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A retest of one finding (its events are in `session_events`). Written only by the importer here. */
@Entity('retest_sessions')
@Index('ix_retest_sessions_finding', ['findingId'])
export class RetestSessionEntity {
  @PrimaryGeneratedColumn('identity', { primaryKeyConstraintName: 'pk_retest_sessions', generatedIdentity: 'BY DEFAULT' })
  id!: number;

  @Column({ name: 'finding_id', type: 'integer' })
  findingId!: number;

  @Column({ type: 'text' })
  status!: string;

  @Column({ type: 'text', nullable: true })
  model!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;
}
