import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ReportStatus } from '@corpus-chat/contracts';

/**
 * One imported file. `content_hash` is unique among live reports (`uq_reports_content_hash_live`),
 * so re-imports are refused while an archived copy does not block; `scan_target` and
 * `lower(filename)` have hash indexes since a btree cannot hold a target of thousands of hosts.
 */
@Entity('reports')
@Index('ix_reports_created_at', ['createdAt'])
export class ReportEntity {
  @PrimaryGeneratedColumn('identity', {
    primaryKeyConstraintName: 'pk_reports',
    generatedIdentity: 'BY DEFAULT',
  })
  id!: number;

  /** The file's base name as uploaded (`dd__flawfinder.sarif`). */
  @Column({ type: 'text' })
  filename!: string;

  /** Detected from the content: one of `REPORT_FORMATS` (`sarif`, `zap`, … `csv`, `json` for native, `pdf`). */
  @Column({ type: 'text' })
  format!: string;

  @Column({ type: 'text', default: 'ready' })
  status!: ReportStatus;

  /** What extracted the findings (a model name); null for structured imports. */
  @Column({ type: 'text', nullable: true })
  model!: string | null;

  /** Why the report failed or was cancelled; null otherwise. */
  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'finding_count', type: 'integer', default: 0 })
  findingCount!: number;

  @Column({ type: 'boolean', default: false })
  archived!: boolean;

  /** Hex SHA-256 of the canonical content (see `importReport`); null when the report has no source file. */
  @Column({ name: 'content_hash', type: 'text', nullable: true })
  contentHash!: string | null;

  /** Best-effort facts about the document: tool name and version, scan date, target, import counters. */
  @Column({ name: 'doc_metadata', type: 'jsonb', default: () => `'{}'::jsonb` })
  docMetadata!: Record<string, unknown>;

  /**
   * What the file says was scanned (IMPORT-RULES "a report's target"): normalised names, sorted and
   * unique; null when the file names none or the report predates scan comparison.
   */
  @Column({ name: 'scan_target', type: 'text', array: true, nullable: true })
  scanTarget!: string[] | null;

  /** The recorded scan time (IMPORT-RULES); null when the file gives none. */
  @Column({ name: 'scanned_at', type: 'timestamptz', nullable: true })
  scannedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
