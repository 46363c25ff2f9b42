import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { CvssScore, FindingOrigin, Severity } from '@corpus-chat/contracts';

/** The expression of the generated `search_vector` column (IMPORT-RULES.md, "the text filter"). */
export const SEARCH_VECTOR_EXPRESSION =
  `to_tsvector('english'::regconfig, coalesce(title, '') || ' ' || coalesce(description, '') || ' ' || ` +
  `coalesce(impact, '') || ' ' || coalesce(attack_vector, ''))`;

/**
 * One version of a finding, append-only: version 1 is as imported (`origin = 'import'`), later ones
 * are edits (`origin = 'edit'`, with `edited_by` and `reason`). The current version is the highest,
 * and `findings.current_version_id` points at it.
 */
@Entity('finding_versions')
@Index('uq_finding_versions_finding_version', ['findingId', 'version'], { unique: true })
export class FindingVersionEntity {
  @PrimaryGeneratedColumn('identity', {
    primaryKeyConstraintName: 'pk_finding_versions',
    generatedIdentity: 'BY DEFAULT',
  })
  id!: number;

  @Column({ name: 'finding_id', type: 'integer' })
  findingId!: number;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'text' })
  origin!: FindingOrigin;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'enum', enumName: 'finding_severity', enum: ['critical', 'high', 'medium', 'low', 'info'] })
  severity!: Severity;

  @Column({ type: 'text', default: '' })
  description!: string;

  @Column({ type: 'text', nullable: true })
  impact!: string | null;

  @Column({ name: 'attack_vector', type: 'text', nullable: true })
  attackVector!: string | null;

  @Column({ name: 'affected_endpoints', type: 'jsonb', default: () => `'[]'::jsonb` })
  affectedEndpoints!: string[];

  @Column({ name: 'reproduction_steps', type: 'jsonb', default: () => `'[]'::jsonb` })
  reproductionSteps!: string[];

  @Column({ type: 'integer', array: true, default: () => `'{}'::integer[]` })
  cwe!: number[];

  /** `{ vector, base_score }` (CVSS 3.1 §7.1 base score 0.0–10.0). */
  @Column({ type: 'jsonb', nullable: true })
  cvss!: CvssScore | null;

  /** MITRE ATT&CK technique ids (`T1190`). */
  @Column({ type: 'jsonb', default: () => `'[]'::jsonb` })
  mitre!: string[];

  /** The verbatim source entry (secrets redacted). */
  @Column({ type: 'jsonb', nullable: true })
  raw!: unknown;

  @Column({ name: 'edited_by', type: 'text', nullable: true })
  editedBy!: string | null;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  /**
   * Generated and stored by Postgres from {@link SEARCH_VECTOR_EXPRESSION} (see the CorpusSchema
   * migration); never written by the application.
   */
  @Column({ name: 'search_vector', type: 'tsvector', select: false, insert: false, update: false })
  searchVector!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
