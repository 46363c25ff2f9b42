import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Severity, VerdictStatus } from '@corpus-chat/contracts';

/**
 * A finding is an identity; what a person reads lives in its versions (`finding_versions`).
 * `current_version_id` points at the newest version so queries never scan history.
 *
 * Denormalised for the hot read paths (maintained in the same transaction by the importer, the
 * generator and the archive toggle; never edited by hand): `severity`, `cwe` and `search_vector`
 * are copies of the current version's, `archived` is the report's flag, `latest_verdict` the status
 * of the newest verdict. The partial indexes `ix_findings_live_*` (WHERE NOT archived) let a count
 * over the default (non-archived) corpus be answered from the index without visiting the table.
 */
@Entity('findings')
@Index('ix_findings_report_severity', ['reportId', 'severity'])
export class FindingEntity {
  @PrimaryGeneratedColumn('identity', { primaryKeyConstraintName: 'pk_findings', generatedIdentity: 'BY DEFAULT' })
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

  /** Copy of the current version's `search_vector` (IMPORT-RULES: title, description, impact, attack vector). */
  @Column({ name: 'search_vector', type: 'tsvector', select: false })
  searchVector!: string;

  @Column({ type: 'boolean', default: false })
  archived!: boolean;

  @Column({ name: 'latest_verdict', type: 'text', nullable: true })
  latestVerdict!: VerdictStatus | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
