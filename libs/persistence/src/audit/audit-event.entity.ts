import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AuditAction, AuditEventView } from '@corpus-chat/contracts';

/**
 * One recorded change (import, archive, status change, edit, note, retest, settings, operator
 * management), written in the same transaction as the change. Append-only (a trigger refuses
 * UPDATE and DELETE); no foreign keys, so an event outlives the report or operator it names.
 */
@Entity('audit_events')
@Index('ix_audit_events_time', ['createdAt', 'id'])
@Index('ix_audit_events_action', ['action', 'createdAt', 'id'])
@Index('ix_audit_events_actor', ['actorId', 'createdAt', 'id'])
@Index('ix_audit_events_subject', ['subjectType', 'subjectId', 'createdAt', 'id'])
export class AuditEventEntity {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    primaryKeyConstraintName: 'pk_audit_events',
    generatedIdentity: 'BY DEFAULT',
  })
  id!: string;

  @Column({ type: 'text' })
  action!: AuditAction;

  @Column({ name: 'actor_id', type: 'uuid', nullable: true })
  actorId!: string | null;

  /** The operator's username at the time. */
  @Column({ name: 'actor_name', type: 'text', nullable: true })
  actorName!: string | null;

  @Column({ name: 'subject_type', type: 'text' })
  subjectType!: AuditEventView['subjectType'];

  @Column({ name: 'subject_id', type: 'text', nullable: true })
  subjectId!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  before!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  after!: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
