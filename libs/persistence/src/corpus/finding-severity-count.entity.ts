import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Severity } from '@corpus-chat/contracts';

/**
 * Findings per report and severity (`report_key` 0 = findings without a report), kept exact by
 * statement triggers on `findings` (see the CorpusSeverityCounts migration). Read-only for the
 * application.
 */
@Entity('finding_severity_counts')
export class FindingSeverityCountEntity {
  @PrimaryColumn({
    name: 'report_key',
    type: 'integer',
    primaryKeyConstraintName: 'pk_finding_severity_counts',
  })
  reportKey!: number;

  @PrimaryColumn({
    type: 'enum',
    enumName: 'finding_severity',
    enum: ['critical', 'high', 'medium', 'low', 'info'],
    primaryKeyConstraintName: 'pk_finding_severity_counts',
  })
  severity!: Severity;

  @Column({ type: 'bigint' })
  findings!: string;
}
