import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { TriageStatus } from '@corpus-chat/contracts';

/** One change of a finding's triage status: from, to, why, who (append-only). */
@Entity('finding_status_changes')
@Index('ix_finding_status_changes_finding', ['findingId', 'createdAt'])
export class FindingStatusChangeEntity {
  @PrimaryGeneratedColumn('identity', {
    primaryKeyConstraintName: 'pk_finding_status_changes',
    generatedIdentity: 'BY DEFAULT',
  })
  id!: number;

  @Column({ name: 'finding_id', type: 'integer' })
  findingId!: number;

  @Column({ name: 'from_status', type: 'text' })
  fromStatus!: TriageStatus;

  @Column({ name: 'to_status', type: 'text' })
  toStatus!: TriageStatus;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ name: 'actor_id', type: 'uuid', nullable: true })
  actorId!: string | null;

  /** The finding of the previous scan an import carried this status over from (null for a person's change). */
  @Column({ name: 'carried_from_finding_id', type: 'integer', nullable: true })
  carriedFromFindingId!: number | null;

  /** The operator's username at the time (kept if the account is renamed); `import` for a carried-over status. */
  @Column({ name: 'actor_name', type: 'text' })
  actorName!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
