import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { VerdictStatus } from '@corpus-chat/contracts';

/**
 * A retest verdict on a finding. The latest (by `created_at`, then `id`) is the finding's verdict;
 * its status is copied to `findings.latest_verdict` when verdicts are written.
 */
@Entity('verdicts')
@Index('ix_verdicts_finding_latest', ['findingId', 'createdAt', 'id'])
export class VerdictEntity {
  @PrimaryGeneratedColumn('identity', {
    primaryKeyConstraintName: 'pk_verdicts',
    generatedIdentity: 'BY DEFAULT',
  })
  id!: number;

  @Column({ name: 'finding_id', type: 'integer' })
  findingId!: number;

  @Column({ name: 'session_id', type: 'integer', nullable: true })
  sessionId!: number | null;

  @Column({ type: 'text' })
  status!: VerdictStatus;

  @Column({ name: 'reason_code', type: 'text', nullable: true })
  reasonCode!: string | null;

  @Column({ type: 'text', nullable: true })
  rationale!: string | null;

  @Column({ type: 'text' })
  actor!: 'agent' | 'operator';

  /** Username of the operator who gave it (`actor = 'operator'`). */
  @Column({ type: 'text', nullable: true })
  author!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
