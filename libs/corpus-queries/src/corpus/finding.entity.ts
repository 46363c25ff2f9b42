import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Severity, TriageStatus, VerdictStatus } from '@corpus-chat/contracts';

/**
 * A finding is an identity; what a person reads lives in its versions (`finding_versions`).
 * `current_version_id` points at the newest version so queries never scan history.
 *
 * Denormalised for the hot read paths (maintained in the same transaction by the importer and the
 * generator; never edited by hand): `severity` and `cwe` are copies of the current version's,
 * `archived` is the report's flag (kept equal by a trigger), `latest_verdict` the status of the
 * newest verdict. Full-text search uses the expression index `ix_findings_search` over
 * `finding_search_vector(current_version_id)` (see the CorpusSearchNarrowFindings migration), so
 * the table stays narrow and counts read few pages.
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
