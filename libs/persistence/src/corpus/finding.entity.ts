import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Severity, TriageStatus, VerdictStatus } from '@corpus-chat/contracts';

/**
 * A finding is an identity; what a person reads lives in its versions, `current_version_id` the
 * newest. `severity`, `cwe`, `archived` and `latest_verdict` are copies for the hot read paths,
 * kept in step by the writers and a trigger; search uses `ix_findings_search` over
 * `finding_search_vector(current_version_id)` so the table stays narrow.
 */
@Entity('findings')
@Index('ix_findings_report_severity', ['reportId', 'severity'])
@Index('ix_findings_report_identity', ['reportId', 'identityKey'])
export class FindingEntity {
  @PrimaryGeneratedColumn('identity', {
    primaryKeyConstraintName: 'pk_findings',
    generatedIdentity: 'BY DEFAULT',
  })
  id!: number;

  /** Null for a finding entered by hand. */
  @Column({ name: 'report_id', type: 'integer', nullable: true })
  reportId!: number | null;

  @Column({ name: 'current_version_id', type: 'integer' })
  currentVersionId!: number;

  @Column({ type: 'enum', enumName: 'finding_severity', enum: ['critical', 'high', 'medium', 'low', 'info'] })
  severity!: Severity;

  @Column({ type: 'integer', array: true, default: () => `'{}'::integer[]` })
  cwe!: number[];

  @Column({ type: 'boolean', default: false })
  archived!: boolean;

  @Column({ name: 'latest_verdict', type: 'text', nullable: true })
  latestVerdict!: VerdictStatus | null;

  /**
   * Hex SHA-256 of the finding's identity (IMPORT-RULES "Finding identity"; see `identityKey`):
   * equal keys are the same problem in the same place across scans. Null for native and manual
   * findings and for findings imported before scan comparison.
   */
  @Column({ name: 'identity_key', type: 'text', nullable: true })
  identityKey!: string | null;

  /** Triage status, changed only through `setFindingStatus` (each change a `finding_status_changes` row). */
  @Column({ type: 'text', default: 'open' })
  status!: TriageStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
